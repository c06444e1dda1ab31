"""One TRL GRPO step with our reward on our export (issue 41). Run by envs/upstream.sh's Python with
the checkout on PYTHONPATH: `python trl_grpo_step.py <trl export dir> <work dir>`. The model is a
one-layer Llama randomly initialised here and the tokenizer a word-level one built from the
export's own words: nothing comes from a hub. Prints one JSON line: what the trainer did and what
our reward was given and returned."""

from __future__ import annotations

import json
import os
import re
import sys

os.environ["HF_HUB_OFFLINE"] = "1"

import torch  # noqa: E402
from datasets import load_dataset  # noqa: E402
from tokenizers import Tokenizer, models, pre_tokenizers  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast  # noqa: E402
from trl import GRPOConfig, GRPOTrainer  # noqa: E402

from extrembench.rl.reward import trl_reward  # noqa: E402

CHAT = "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }} \n{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}"


def main(export: str, work: str) -> None:
    torch.manual_seed(0)
    data = load_dataset("parquet", data_files=os.path.join(export, "train.parquet"), split="train")
    words = set()
    for row in data:
        for message in row["prompt"]:
            words |= set(re.findall(r"\S+", message["content"]))
        words |= set(re.findall(r"\S+", row["answer"]))
    words |= {"\\boxed{", "}", "assistant:", "user:"}
    vocab = {"<pad>": 0, "<eos>": 1, "<unk>": 2, **{w: 3 + i for i, w in enumerate(sorted(words))}}
    core = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, pad_token="<pad>", eos_token="<eos>", unk_token="<unk>")
    tokenizer.chat_template = CHAT
    model = LlamaForCausalLM(
        LlamaConfig(
            vocab_size=len(vocab),
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=1,
            num_attention_heads=2,
            num_key_value_heads=2,
            max_position_embeddings=4096,
            pad_token_id=0,
            eos_token_id=1,
            bos_token_id=1,
        )
    )
    calls = []

    def reward(completions, answer, facts=None, **kwargs):
        scores = trl_reward(completions, answer, facts=facts, **kwargs)
        calls.append(
            {
                "completions": len(completions),
                "answers": sorted(set(answer)),
                "facts": facts is not None,
                "scores": scores,
            }
        )
        return scores

    reward.__name__ = "extrembench"
    config = GRPOConfig(
        output_dir=work,
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=16,
        max_steps=1,
        learning_rate=1e-3,
        logging_steps=1,
        report_to=[],
        use_cpu=True,
        save_strategy="no",
        bf16=False,
        seed=0,
    )
    trainer = GRPOTrainer(model=model, reward_funcs=reward, args=config, train_dataset=data, processing_class=tokenizer)
    result = trainer.train()
    print(
        json.dumps(
            {
                "global_step": trainer.state.global_step,
                "train_loss": result.training_loss,
                "log": trainer.state.log_history[0],
                "calls": calls,
                "gold": sorted(set(data["answer"])),
            }
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:3])
