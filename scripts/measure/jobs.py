"""jobs: ending an MPI job that a measurement script started.

A job is started with `subprocess.Popen(..., start_new_session=True)`, so
that mpiexec leads a process group of its own; kill_group(proc) then ends
it however far it got.  SIGTERM first: Hydra's mpiexec ends its proxies
and every rank on it, which run in sessions of their own and which a
SIGKILL to mpiexec would leave running (and busy-polling, so that every
later run of the script times a crowded machine)."""
import os
import signal
import sys
import time


def kill_group(proc):
    """Ends the whole job: mpiexec, its proxies and every rank."""
    for sig, wait in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        end = time.monotonic() + wait
        while time.monotonic() < end:
            if proc.poll() is not None:
                try:
                    os.killpg(proc.pid, 0)
                except ProcessLookupError:
                    return
            time.sleep(0.05)
    print(f"{os.path.basename(sys.argv[0])}: warning: processes of group "
          f"{proc.pid} survived SIGKILL", file=sys.stderr)
