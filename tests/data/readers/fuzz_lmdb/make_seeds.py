"""Writes the seed corpus of fuzz/fuzz_lmdb.cc: LMDB data files made by PyPI's `lmdb` (liblmdb
bundled), small enough for the fuzzer (a few 4 KiB pages each). Run from anywhere:
    python tests/data/readers/fuzz_lmdb/make_seeds.py
"""
import os
import shutil
import tempfile

import lmdb

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, fill, **open_kw):
    tmp = tempfile.mkdtemp()
    try:
        env = lmdb.open(tmp, map_size=1 << 22, **open_kw)
        fill(env)
        env.close()
        shutil.copyfile(os.path.join(tmp, "data.mdb"), os.path.join(HERE, name))
    finally:
        shutil.rmtree(tmp)


def leaf(env):  # one leaf page: three small values
    with env.begin(write=True) as t:
        for k in range(3):
            t.put(b"%08d" % k, bytes([k]) * (5 + k))


def tree(env):  # a branch page over three leaves
    with env.begin(write=True) as t:
        for k in range(120):
            t.put(b"%08d" % k, bytes([k]) * 60)


def overflow(env):  # values on overflow pages next to inline ones
    with env.begin(write=True) as t:
        t.put(b"big", b"\x07" * 5000)
        t.put(b"small", b"abc")


def named(env):  # the main database holds named databases' records (F_SUBDATA nodes)
    a = env.open_db(b"a")
    with env.begin(write=True) as t:
        t.put(b"k", b"v", db=a)
        t.put(b"plain", b"value")


write("leaf.mdb", leaf)
write("tree.mdb", tree)
write("overflow.mdb", overflow)
write("named.mdb", named, max_dbs=2)
