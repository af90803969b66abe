"""python3 -m roofsim_ui [--port N] [--host H] [--open]"""
import argparse
import sys

from . import server


def main():
    p = argparse.ArgumentParser(prog="roofsim ui", description="Serve the roofsim page (roofline calculator and "
                                "simulation explorer) and its JSON API on a local port.")
    p.add_argument("--port", type=int, default=8765, help="port to listen on (0: any free port; default 8765)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--open", action="store_true", help="open the page in a web browser")
    p.add_argument("--max-jobs", type=int, default=4, help="simulations that may run at once (default 4)")
    p.add_argument("--sweeps-dir", default=None, help="the folder whose sweep files (*.toml) and stores (*.db) the "
                   "sweeps view reads (default: configs/sweeps of the sources)")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="also answer requests that name this server NAME (an SSH tunnel's or a proxy's host name; "
                   "repeatable). Other names are refused (403): another site's page rebinding its name to this address")
    a = p.parse_args()
    if not 0 <= a.port <= 65535:
        p.error("--port: expected 0 to 65535")
    try:
        server.serve(a.host, a.port, open_browser=a.open, max_jobs=max(1, a.max_jobs), sweeps_dir=a.sweeps_dir,
                     allow_hosts=a.allow_host)
    except OSError as e:
        print(f"roofsim ui: cannot listen on {a.host}:{a.port}: {e.strerror or e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        pass


main()
