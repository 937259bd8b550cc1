"""The `sluice` command.

    sluice bench [options]            the main benchmark (sluice bench --help; see sluice.tools.bench)
    sluice wds2idx ARCHIVE [INDEX]    writes a tar's WebDataset index (DALI's wds2idx format v1.2)
    sluice tfrecord2idx FILE [INDEX]  writes a TFRecord file's index (DALI's tfrecord2idx format)
    sluice prepare INPUT... -o OUT    re-encodes a dataset into WebDataset shards + indexes (sluice prepare --help)
    sluice ops [NAME]                 the registered operators, or one operator's arguments and docs
"""
import argparse
import os
import sys

COMMANDS = ("bench", "wds2idx", "tfrecord2idx", "prepare", "ops")


def _usage():
    return __doc__.split("\n\n", 1)[1]


def tfrecord2idx_main(argv):
    ap = argparse.ArgumentParser(
        prog="sluice tfrecord2idx",
        description="Writes the index of TFRecord files in DALI's tfrecord2idx format (one '<offset> <size>' line "
                    "per record, the size including the 16 framing bytes), checking every record's CRCs. DALI's form: "
                    "tfrecord2idx FILE INDEX; several files: each gets FILE.idx (or --output-dir).")
    ap.add_argument("files", nargs="+", help="the TFRecord file(s), optionally followed by one index path")
    ap.add_argument("--output-dir", help="writes <name>.idx for each file into this directory")
    args = ap.parse_args(argv)
    files, dest_one = args.files, None
    if len(files) == 2 and not args.output_dir and os.path.exists(files[0]) and not os.path.exists(files[1]):
        files, dest_one = files[:1], files[1]

    from ..tfrecord import write_index

    status = 0
    for f in files:
        dest = dest_one or os.path.join(args.output_dir or os.path.dirname(f), os.path.basename(f) + ".idx")
        try:
            write_index(f, dest)
        except Exception as e:  # SluiceError: bad CRC, truncated record, unreadable file
            print(f"sluice tfrecord2idx: {e}", file=sys.stderr)
            status = 1
    return status


def tfrecord2idx_script():
    """The `tfrecord2idx` command (DALI installs one of that name): `sluice tfrecord2idx`."""
    sys.exit(tfrecord2idx_main(sys.argv[1:]))


def wds2idx_script():
    """The `wds2idx` command (DALI installs one of that name): `sluice wds2idx`."""
    sys.exit(wds2idx_main(sys.argv[1:]))


def _is_remote(path):
    return path.lower().startswith(("s3://", "http://", "https://"))


def wds2idx_main(argv):
    ap = argparse.ArgumentParser(
        prog="sluice wds2idx",
        description="Writes the WebDataset index of a tar archive in DALI's wds2idx format (v1.2: a "
                    "'v1.2 <samples>' line, then one line per sample with '<ext> <offset> <size> <member>' "
                    "per component), byte for byte what DALI's wds2idx writes. Scans the tar headers "
                    "only. Indexes for several archives: give each archive, and --output-dir or none "
                    "(then each index is written beside its archive as <archive>.idx without '.tar').")
    ap.add_argument("archive", nargs="+", help="the tar archive(s)")
    ap.add_argument("-o", "--output", help="the index file for a single archive ('-': standard output)")
    ap.add_argument("--output-dir", help="writes <name>.idx for each archive into this directory")
    ap.add_argument("--no-progress", action="store_true", help="no progress bar (shown on a terminal after 1 s)")
    # DALI's form: wds2idx ARCHIVE [INDEX].
    args, extra = ap.parse_known_args(argv)
    if len(args.archive) == 2 and not args.output and not args.output_dir and not args.archive[1].endswith(".tar"):
        args.archive, args.output = args.archive[:1], args.archive[1]
    if extra:
        ap.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.output and len(args.archive) > 1:
        ap.error("--output names one index: give one archive, or use --output-dir")

    from .. import _sluice
    from .progress import ProgressBar

    status = 0
    for tar in args.archive:
        if args.output:
            dest = args.output
        else:
            base = os.path.basename(tar)
            base = base[:-4] if base.endswith(".tar") else base
            folder = args.output_dir if args.output_dir else tar[:len(tar) - len(os.path.basename(tar))]
            dest = folder.rstrip("/") + "/" + base + ".idx" if folder else base + ".idx"
        bar = ProgressBar(f"indexing {os.path.basename(tar)}", 0, unit="B",
                          enabled=False if args.no_progress else None)
        try:
            text = _sluice.wds_index(tar, lambda done, total: bar.update(done, total))
        except Exception as e:  # SluiceError: unreadable/malformed archive, unrepresentable name
            bar.close()
            print(f"sluice wds2idx: {e}", file=sys.stderr)
            status = 1
            continue
        bar.close()
        if dest == "-":
            sys.stdout.flush()
            sys.stdout.buffer.write(text)
            sys.stdout.buffer.flush()
            continue
        if _is_remote(dest):  # s3:// (an object PUT is atomic: no temporary name)
            try:
                _sluice.storage_write(dest, text)
            except Exception as e:  # SluiceError naming the URL, the HTTP status and the attempts
                print(f"sluice wds2idx: {e}", file=sys.stderr)
                status = 1
                continue
            if len(args.archive) > 1 or not args.output:
                print(f"{tar} -> {dest}", file=sys.stderr)
            continue
        tmp = dest + ".tmp"
        try:
            with open(tmp, "wb") as f:
                f.write(text)
            os.replace(tmp, dest)
        except OSError as e:
            if os.path.exists(tmp):
                os.remove(tmp)
            print(f"sluice wds2idx: cannot write {dest}: {e.strerror}", file=sys.stderr)
            status = 1
            continue
        if len(args.archive) > 1 or not args.output:
            print(f"{tar} -> {dest}", file=sys.stderr)
    return status


def ops_main(argv):
    ap = argparse.ArgumentParser(
        prog="sluice ops",
        description="Lists the registered operators, or prints one operator's inputs, outputs, arguments "
                    "(types, defaults, constraints) and docs, from the C++ schemas.")
    ap.add_argument("name", nargs="?", help="an operator's name, as in sluice.fn (e.g. decoders.image)")
    ap.add_argument("--all", action="store_true", help="include the test-only operators of development builds")
    ap.add_argument("--markdown", action="store_true", help="the whole reference as Markdown (docs/operators.md)")
    args = ap.parse_args(argv)

    from . import opdocs
    from ..errors import SluiceError

    if args.markdown:
        sys.stdout.write(opdocs.markdown())
    elif args.name:
        try:
            sys.stdout.write(opdocs.operator_text(args.name))
        except SluiceError as e:
            print(f"sluice ops: {e}", file=sys.stderr)
            return 1
    else:
        sys.stdout.write(opdocs.operator_list(include_testing=args.all))
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print("usage:\n" + _usage(), end="")
        return 0 if argv else 2
    cmd, rest = argv[0], argv[1:]
    if cmd == "bench":
        from .bench import main as bench_main

        return bench_main(rest)
    if cmd == "wds2idx":
        return wds2idx_main(rest)
    if cmd == "tfrecord2idx":
        return tfrecord2idx_main(rest)
    if cmd == "prepare":
        from .prepare import main as prepare_main

        return prepare_main(rest)
    if cmd == "ops":
        return ops_main(rest)
    from ..errors import did_you_mean

    print(f"sluice: unknown command '{cmd}'{did_you_mean(cmd, list(COMMANDS))} (available: {', '.join(COMMANDS)})",
          file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
