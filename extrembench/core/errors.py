"""The one mark of an error in what the user gave (a file, a setting, a missing dataset)."""


class InputError(Exception):
    """Its message names the file or setting, what is wrong and the fix; the console script prints
    it without a traceback (anything else is a bug and keeps its traceback)."""
