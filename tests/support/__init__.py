"""What the test modules share beyond conftest.py's fixtures: the one loopback HTTP stand-in server
(loopback.py), the one way to run the Snakemake workflow (workflow.py), the one builder of test
problems (problems.py) and of PROBLEMS artifact rows (rows.py), and the generate stage on one
shard (generation.py).

pytest puts tests/ on sys.path (it has no __init__.py, like the test modules' own `from conftest
import ...`), so a test imports `from support.loopback import LoopbackServer`. loopback.py and
workflow.py use the standard library only: a stand-in started as a subprocess under another
PYTHONPATH can import them.
"""
