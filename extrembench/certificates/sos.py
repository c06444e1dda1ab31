"""placeholder"""
def attempt(parsed, exact):
    return None, "not implemented"
