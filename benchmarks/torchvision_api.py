"""torchvision's transforms against sluice.experimental.torchvision in a PyTorch DataLoader, side by side.

    PYTHONPATH=python .venv/bin/python benchmarks/torchvision_api.py [--data sample_data] [--workers 2]
        [--images 512] [--batch 32] [--size 224] [--repeat 2] [--jitter] [--trivial]

The recipe: PIL decode (``Image.open(...).convert("RGB")``, the same for both), then
``Compose([RandomResizedCrop(size), RandomHorizontalFlip(), PILToTensor(), ToDtype(float32,
scale=True), Normalize(mean, std)])``, with ``--jitter`` a ``ColorJitter(0.4, 0.4, 0.4)`` after the
flip, with ``--trivial`` a ``TrivialAugmentWide()`` there (the issue's second recipe; both may be
given) (torchvision 0.14 has no v2: ``ConvertImageDtype`` stands for
``ToDtype``), switched by the import only. Reported: images/s over `--images` images (the first batch
untimed; the best of `--repeat` alternating runs), for the transforms alone in the main process and for the whole DataLoader with
`--workers` workers; with both the transforms' share of the per-image time.
"""
import argparse
import glob
import os
import time

MEAN, STD = [0.485, 0.456, 0.406], [0.229, 0.224, 0.225]
JITTER = False  # --jitter: ColorJitter(0.4, 0.4, 0.4) after the flip (the recipe)
TRIVIAL = False  # --trivial: TrivialAugmentWide() after the flip (the second recipe)


def recipe(tv, size):
    import torch
    if tv.__name__.startswith("sluice"):
        convert = tv.ToDtype(torch.float32, scale=True)
    else:
        convert = tv.ConvertImageDtype(torch.float32)
    jitter = [tv.ColorJitter(0.4, 0.4, 0.4)] if JITTER else []
    trivial = [tv.TrivialAugmentWide()] if TRIVIAL else []
    return tv.Compose([tv.RandomResizedCrop(size, antialias=True), tv.RandomHorizontalFlip(), *jitter, *trivial,
                       tv.PILToTensor(), convert, tv.Normalize(MEAN, STD)])


class Images:
    def __init__(self, files, transform):
        self.files, self.transform = files, transform

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        from PIL import Image
        return self.transform(Image.open(self.files[i]).convert("RGB")), i % 10


def transforms_only(files, transform, n):
    from PIL import Image
    images = [Image.open(f).convert("RGB") for f in files[:64]]
    transform(images[0])
    start = time.perf_counter()
    for k in range(n):
        transform(images[k % len(images)])
    return n / (time.perf_counter() - start)


def loader(files, transform, workers, batch):
    import torch
    dl = torch.utils.data.DataLoader(Images(files, transform), batch_size=batch, num_workers=workers,
                                     persistent_workers=False)
    it = iter(dl)
    first, _ = next(it)
    n, start = 0, time.perf_counter()
    for x, _ in it:
        n += x.shape[0]
    return n / (time.perf_counter() - start), tuple(first.shape), first.dtype


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="sample_data")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--images", type=int, default=512)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--jitter", action="store_true")
    ap.add_argument("--trivial", action="store_true")
    args = ap.parse_args()
    global JITTER, TRIVIAL
    JITTER, TRIVIAL = args.jitter, args.trivial
    import torch
    import torchvision.transforms as T

    import sluice.experimental.dynamic as ndd
    import sluice.experimental.torchvision as st
    torch.set_num_threads(1)  # one thread per worker for both (torch's own intra-op threads off)
    ndd.set_num_threads(1)
    files = sorted(glob.glob(os.path.join(args.data, "train", "*", "*.jpg")))[:args.images]
    best = {}
    for _ in range(args.repeat):  # alternating runs; the best of each (the least disturbed on a shared machine)
        for name, tv in (("torchvision", T), ("sluice", st)):
            t_only = transforms_only(files, recipe(tv, args.size), 256)
            torch.manual_seed(0)
            rate, shape, dtype = loader(files, recipe(tv, args.size), args.workers, args.batch)
            old = best.get(name, (name, 0.0, 0.0, shape, dtype))
            best[name] = (name, max(old[1], t_only), max(old[2], rate), shape, dtype)
    rows = [best["torchvision"], best["sluice"]]
    print(f"{args.workers} workers, batch {args.batch}, {len(files)} images, RandomResizedCrop({args.size}) + flip + "
          f"{'ColorJitter(0.4, 0.4, 0.4) + ' if JITTER else ''}{'TrivialAugmentWide + ' if TRIVIAL else ''}to tensor + float + Normalize")
    print("                 transforms only (img/s, 1 thread) | DataLoader incl. PIL decode (img/s) | batch")
    for name, t_only, rate, shape, dtype in rows:
        print(f"  {name:12s} {t_only:12.1f}                        | {rate:10.1f}                          | "
              f"{shape} {dtype}")
    print(f"  ratio sluice/torchvision: transforms {rows[1][1] / rows[0][1]:.2f}x, DataLoader "
          f"{rows[1][2] / rows[0][2]:.2f}x")


if __name__ == "__main__":
    main()
