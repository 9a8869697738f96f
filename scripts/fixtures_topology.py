#!/usr/bin/env python3
"""Topology fixtures for tests/unit/test_topology.c: hwloc XML exports of
synthetic machines (made by lstopo from hwloc synthetic descriptions), with a
CPU model added to each package as hwloc records it on real machines.

  2s_smt.xml  two packages, one NUMA node and one L3 each, 4 cores of 2
              hardware threads; OS numbers as Linux gives them on Intel
              servers (the second thread of core c of package p is c + 8).

Run from the repository top: /usr/bin/python3 scripts/fixtures_topology.py
"""
import os
import re
import subprocess

OUT = "tests/fixtures/topology"
MODEL = "Synthetic Xeon 2x4c SMT"

# logical order: pack 0 core 0 (t0, t1), pack 0 core 1 ... pack 1 core 3
INDEXES = ",".join(f"{p * 4 + c},{p * 4 + c + 8}" for p in range(2) for c in range(4))
DESC = f"pack:2 [numa] l3:1 core:4 l2:1 l1d:1 pu:2(indexes={INDEXES})"


def main():
    os.makedirs(OUT, exist_ok=True)
    path = os.path.join(OUT, "2s_smt.xml")
    xml = subprocess.run(["lstopo-no-graphics", "--input", DESC, "--of", "xml", "-"],
                         check=True, capture_output=True, text=True).stdout
    # drop what changes from run to run or machine to machine
    xml = re.sub(r'\s*<info name="(ProcessName|hwlocVersion)" value="[^"]*"/>', "", xml)
    # hwloc puts the CPU model on packages
    xml = re.sub(r'(<object type="Package"[^>]*>)',
                 lambda m: m.group(1) + f'\n      <info name="CPUModel" value="{MODEL}"/>', xml)
    with open(path, "w") as f:
        f.write(xml)
    print(f"wrote {path} ({len(xml)} bytes)")


if __name__ == "__main__":
    main()
