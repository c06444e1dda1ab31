"""LLM access layer shared by generate, translate, convert and the judge: servers, client, response cache."""
