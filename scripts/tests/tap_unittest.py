# SPDX-License-Identifier: GPL-2.0
#
# scripts/tests/tap_unittest.py: for the unit tests of the Python scripts
# in scripts/ (scripts/tests/test-*.py): load_script() imports a script
# that has no .py name, run_tap() runs a module's unittest cases and
# prints them as TAP for scripts/run-tests.

import importlib.machinery
import importlib.util
import os
import sys
import traceback
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
# No bytecode in the tree (the tests run with -B, this covers a plain
# python3 too); the scripts import their modules from scripts/.
sys.dont_write_bytecode = True
sys.path.insert(0, SCRIPTS)


def load_script(name):
    """scripts/NAME as a module, its main() not run."""
    loader = importlib.machinery.SourceFileLoader(name.replace("-", "_"),
                                                  os.path.join(SCRIPTS, name))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


class TapResult(unittest.TestResult):
    """Each test a TAP line, its docstring's first line the name."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def line(self, status, test, detail=None):
        self.count += 1
        print("%s %d %s" % (status, self.count, test.shortDescription() or test.id()))
        for text in (detail or "").splitlines():
            print("# " + text)
        sys.stdout.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self.line("ok", test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.line("not ok", test, "".join(traceback.format_exception(*err)))

    def addError(self, test, err):
        super().addError(test, err)
        self.line("not ok", test, "".join(traceback.format_exception(*err)))


def run_tap(module_name):
    """Run the test cases of a module as TAP; the exit status."""
    print("TAP version 13")
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[module_name])
    result = TapResult()
    suite.run(result)
    print("1..%d" % result.count)
    return 0 if result.wasSuccessful() else 1
