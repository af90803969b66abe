#!/usr/bin/env python3
"""Every test case of roofsim_sc_tests carries a tag ctest registers it by.

ctest registers that program's cases by tag ([systemc] or [validation]; [.] marks a hidden
one run by name): a case without one compiles, passes when run by hand, and never runs under
ctest. This check reads the program's sources from tests/CMakeLists.txt and names any such case.
"""
import pathlib
import re
import sys

tests = pathlib.Path(__file__).resolve().parent
cmake = (tests / "CMakeLists.txt").read_text()
sources = cmake.split("add_executable(roofsim_sc_tests", 1)[1].split(")", 1)[0].split()
untagged = []
for name in sources:
    if not name.endswith(".cpp") or name == "sc_main.cpp":
        continue
    text = (tests / name).read_text()
    for case in re.finditer(r"TEST_CASE\((.*?)\)\s*\{", text, re.S):
        if not any(tag in case.group(1) for tag in ("[systemc]", "[validation]", "[.]")):
            line = text[: case.start()].count("\n") + 1
            untagged.append(f"tests/{name}:{line}: {case.group(1).splitlines()[0][:100]}")
for u in untagged:
    print(f"{u}: no [systemc], [validation] or [.] tag: ctest would never run it", file=sys.stderr)
print(f"check_test_tags: {len(sources) - 1} files of roofsim_sc_tests, {len(untagged)} untagged test cases")
sys.exit(1 if untagged else 0)
