"""torch.utils.data against PyTorch: the batches a loop sees, in PyTorch's order (shuffling draws
from the global random stream as PyTorch's DataLoader and RandomSampler do), collation,
random_split, samplers and errors."""
import pytest
import torch

import gradcli.torch as G
from snippet_oracle import run

pytestmark = pytest.mark.timeout(60)

SNIPPETS = {
    "TensorDataset in order and shuffled": """
        data = torch.utils.data
        x = torch.arange(20, dtype=torch.float32).reshape(10, 2)
        y = torch.arange(10)
        ds = data.TensorDataset(x, y)
        print(len(ds), ds[3], ds[-1])
        for kw in ({"batch_size": 4}, {"batch_size": 4, "drop_last": True}, {"batch_size": 3, "shuffle": True},
                   {"batch_size": 10, "shuffle": True, "drop_last": True}, {"batch_size": None}):
            torch.manual_seed(7)
            loader = data.DataLoader(ds, **kw)
            print(kw, len(loader))
            for epoch in range(2):
                for xb, yb in loader:
                    print(epoch, xb.tolist(), yb.tolist())
            print("next draw", torch.rand(2))
    """,
    "training loop over shuffled batches": """
        torch.manual_seed(0)
        x = torch.randn(12, 3)
        y = x * torch.tensor([1.0, -2.0, 0.5]) + 0.25
        w = torch.zeros(4, 3, requires_grad=True)       # one weight per batch row: no reduction in backward
        opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=4, shuffle=True,
                                             drop_last=True)
        for epoch in range(3):
            for xb, yb in loader:
                opt.zero_grad()
                loss = ((xb * w - yb) ** 2).sum()
                loss.backward()
                opt.step()
                print(epoch, xb.shape, bits(w), yb[0])
    """,
    "Dataset subclasses and collate": """
        class Pairs(torch.utils.data.Dataset):
            def __init__(self, n):
                self.n = n
            def __len__(self):
                return self.n
            def __getitem__(self, i):
                return {"x": torch.tensor([float(i), i * 0.5]), "label": i % 3, "w": i / 4, "name": f"s{i}",
                        "pair": (i, [i, -i])}
        torch.manual_seed(3)
        for batch in torch.utils.data.DataLoader(Pairs(5), batch_size=2, shuffle=True):
            print(batch)
        loader = torch.utils.data.DataLoader(Pairs(5), batch_size=2,
                                             collate_fn=lambda items: [it["label"] for it in items])
        print(list(loader))
        print(torch.utils.data.default_collate([(1, 2.5, True), (3, 4.5, False)]))
        print(torch.utils.data.default_collate([np.float32(1.5), np.float32(2)]))
        print(torch.utils.data.default_collate([np.array([1, 2]), np.array([3, 4])]))
        for bad in ([object(), object()], [[1, 2], [3]]):
            try:
                torch.utils.data.default_collate(bad)
            except Exception as e:
                print(type(e).__name__, str(e).split(" object at")[0])
    """,
    "random_split and samplers": """
        ds = torch.utils.data.TensorDataset(torch.arange(10))
        torch.manual_seed(5)
        a, b = torch.utils.data.random_split(ds, [7, 3])
        print(a.indices, b.indices, len(a), b[0])
        parts = torch.utils.data.random_split(range(10), [0.5, 0.3, 0.2])
        print([p.indices for p in parts])
        parts = torch.utils.data.random_split(range(5), [0.5, 0.5, 0.0])
        print([p.indices for p in parts])
        g = torch.Generator().manual_seed(42)
        print([s.indices for s in torch.utils.data.random_split(range(6), [2, 4], generator=g)])
        try:
            torch.utils.data.random_split(range(6), [2, 3])
        except ValueError as e:
            print(e)
        print(list(torch.utils.data.SequentialSampler(range(4))))
        print(list(torch.utils.data.RandomSampler(range(6))), list(torch.utils.data.RandomSampler(range(6))))
        print(list(torch.utils.data.RandomSampler(range(5), replacement=True, num_samples=40)))
        print(list(torch.utils.data.RandomSampler(range(4), num_samples=10)))
        print(list(torch.utils.data.SubsetRandomSampler([10, 20, 30, 40])))
        print(list(torch.utils.data.BatchSampler(range(7), 3, False)), list(torch.utils.data.BatchSampler(range(7), 3, True)))
        print(torch.rand(1))
    """,
    "loader options": """
        torch.manual_seed(11)
        ds = torch.utils.data.TensorDataset(torch.arange(8))
        g = torch.Generator().manual_seed(1)
        print([b[0].tolist() for b in torch.utils.data.DataLoader(ds, batch_size=3, shuffle=True, generator=g)])
        sampler = torch.utils.data.SubsetRandomSampler([1, 3, 5])
        print([b[0].tolist() for b in torch.utils.data.DataLoader(ds, sampler=sampler)])
        bs = torch.utils.data.BatchSampler(range(8), 4, False)
        print([b[0].tolist() for b in torch.utils.data.DataLoader(ds, batch_sampler=bs)])
        it = iter(torch.utils.data.DataLoader(ds, batch_size=5))
        print(len(it), next(it), next(it))
        try:
            next(it)
        except StopIteration:
            print("stop")
        class Stream(torch.utils.data.IterableDataset):
            def __iter__(self):
                return iter(range(7))
        print(list(torch.utils.data.DataLoader(Stream(), batch_size=3)))
        print(list(torch.utils.data.DataLoader(Stream(), batch_size=3, drop_last=True)))
        print([b[0].tolist() for b in torch.utils.data.DataLoader(ds, batch_size=3, shuffle=True, num_workers=2)])
        for kw in ({"shuffle": True, "sampler": sampler}, {"batch_sampler": bs, "batch_size": 2},
                   {"batch_size": None, "drop_last": True}, {"batch_size": 0}, {"num_workers": -1},
                   {"prefetch_factor": 2}, {"persistent_workers": True}):
            try:
                torch.utils.data.DataLoader(ds, **kw)
            except ValueError as e:
                print(e)
        try:
            torch.utils.data.DataLoader(Stream(), shuffle=True)
        except ValueError as e:
            print(e)
        try:
            torch.utils.data.TensorDataset(torch.ones(3), torch.ones(4))
        except AssertionError as e:
            print("AssertionError", e)
        print(torch.rand(1))
    """,
}


@pytest.mark.parametrize("name", list(SNIPPETS))
def test_data_loading_matches_torch(name):
    assert run(G, SNIPPETS[name]) == run(torch, SNIPPETS[name])
