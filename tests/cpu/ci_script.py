"""What the CPU tests of the .ci/ scripts share: one script loaded as a module, and the checks
that record what failed (a test prints each failure as it comes and exits 1 when any did)."""
import importlib.util
import os


def load(src, script, module):
    """SOURCE_DIR/.ci/SCRIPT as the module MODULE."""
    spec = importlib.util.spec_from_file_location(module, os.path.join(src, ".ci", script))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Checks:
    """check(cond, what): records and prints `what` when cond is false; .failed lists them."""

    def __init__(self, test):
        self.test, self.failed = test, []

    def __call__(self, cond, what):
        if not cond:
            self.failed.append(what)
            print(f"{self.test}: FAILED: {what}")
