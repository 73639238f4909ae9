"""``python -m dominoai``: the command line (see :mod:`dominoai.cli`).

Run from a folder that holds a folder named ``dominoai`` which is not the
package (a checkout of the project, say), Python takes that folder for a
namespace package and, with an editable install, still finds this file
without running the package's ``__init__``. The command would then fail
with an ImportError traceback; instead it says so in one line (exit code 2).
"""

import sys


def _hidden_by() -> str | None:
    """The folder that stands in for the package, or None when the package
    was imported properly."""
    pkg = sys.modules.get(__spec__.parent if __spec__ else "dominoai")
    if pkg is not None and getattr(pkg, "__file__", None) is not None:
        return None
    paths = [p for p in getattr(pkg, "__path__", []) if not p.endswith("__path_hook__")]
    return paths[0] if paths else "a folder named dominoai"


if __name__ == "__main__":
    folder = _hidden_by()
    if folder is not None:
        sys.stderr.write(f"dominoai: error: the folder {folder} is not the dominoai package but hides "
                         "it (a checkout?): run the command from another folder, or use the "
                         "'dominoai' command\n")
        sys.exit(2)

    from .cli import main

    sys.exit(main())
