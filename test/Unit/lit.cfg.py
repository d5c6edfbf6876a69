# -*- Python -*-
# lit configuration of the GoogleTest suites: every executable named *Tests
# under the build's test/Unit tree is run, test by test.

import os

import lit.formats

config.name = "POINTWISE-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.pointwise_obj_root, "test", "Unit")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
