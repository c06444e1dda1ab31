"""What the test modules share beyond conftest.py's fixtures: the one loopback HTTP stand-in server
(loopback.py) and the one way to run the Snakemake workflow (workflow.py).

pytest puts tests/ on sys.path (it has no __init__.py, like the test modules' own `from conftest
import ...`), so a test imports `from support.loopback import LoopbackServer`. Both modules use the
standard library only: a stand-in started as a subprocess under another PYTHONPATH can import them.
"""
