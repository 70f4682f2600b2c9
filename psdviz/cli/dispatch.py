"""``main``: parses the command line, runs the command, and turns a user's mistake into one line and exit 2."""
from __future__ import annotations

import contextlib
import os
import sys

from .budget_cmd import run_budget
from .build_cmd import run_build
from .info_cmd import run_info, run_params, run_sample
from .job_cmd import run_job, user_error
from .parsing import EXIT_USAGE, parser
from .regions_cmd import run_regions

EXIT_BROKEN_PIPE = 141     # 128 + SIGPIPE: what a shell reports for a writer whose reader closed the pipe


READ_ONLY = ("info", "params")   # commands that write no file: a closed pipe ends them quietly


def main(argv: list[str] | None = None) -> int:
    a = parser().parse_args(argv)
    run = {"build": run_build, "regions": run_regions, "info": run_info, "params": run_params,
           "budget": run_budget, "sample": run_sample, "run": run_job}[a.command]
    try:
        code = run(a)
        sys.stdout.flush()                          # a closed pipe is found here, not at the interpreter's exit
        return code
    except BrokenPipeError as exc:
        if a.command not in READ_ONLY:              # a command that writes files says what it wrote: one line, exit 2
            print(f"psdviz {a.command}: {exc} (standard output closed: check what was written)", file=sys.stderr)
            return EXIT_USAGE
        with contextlib.suppress(OSError, ValueError):   # `psdviz info ... | head`: the reader has all it wanted;
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())   # no second error at shutdown
        return EXIT_BROKEN_PIPE
    except (Exception, RecursionError) as exc:      # never a traceback: one line
        if user_error(exc):                         # the user's mistake: what to fix
            print(f"psdviz {a.command}: {exc}", file=sys.stderr)
            return EXIT_USAGE
        first = (str(exc).strip().splitlines() or [""])[0]
        if "a bug in psdviz" in first:              # a job's release that failed says so, and what was written
            print(f"psdviz {a.command}: {first}", file=sys.stderr)
        else:
            first = first[:300]
            print(f"psdviz {a.command}: unexpected {type(exc).__name__}: {first} (a bug in psdviz: please report "
                  "it with the command that caused it)", file=sys.stderr)
        return 1
