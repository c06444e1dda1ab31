"""One BLAS thread for every numeric step a verdict or certificate rests on.

A multithreaded BLAS splits its sums by thread, so their rounding depends on the thread count: with
two threads the 'sos, ordered' SDP of ineq-0159 rounded to no exact certificate, with one it did, and
a direct `extrembench check` on a 2-core machine shipped another certificate than the Snakemake job
(one thread per job). threadpoolctl sets the limit on the BLAS libraries numpy and scipy loaded, for
the duration of the call, so the same file, seed and code give the same bytes whatever the machine's
core count. (A different CPU can still pick other BLAS kernels; the verdict never depends on that,
since every certificate is checked exactly, but which proof is found could.)
"""

from threadpoolctl import threadpool_limits

# a decorator: the limit holds while the wrapped call runs and is restored after it
one_blas_thread = threadpool_limits.wrap(limits=1, user_api="blas")
