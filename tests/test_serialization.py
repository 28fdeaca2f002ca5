"""torch.load never runs code from a file and never reads outside a storage: a crafted
checkpoint is refused with PyTorch's weights_only error (UnpicklingError)."""
import io
import pickle

import pytest

import gradcli.torch as G
from gradcli.torch import serialization

pytestmark = pytest.mark.timeout(60)


class _Call:
    def __init__(self, fn, *args):
        self.fn, self.args = fn, args

    def __reduce__(self):
        return self.fn, self.args


class _Ids(pickle.Pickler):
    """A pickler that writes a given persistent id for each _Id object."""

    def persistent_id(self, obj):
        return obj.pid if isinstance(obj, _Id) else None


class _Id:
    def __init__(self, pid):
        self.pid = pid


def _checkpoint(obj, storages=(), data=b""):
    out = io.BytesIO()
    out.write(serialization._MAGIC)
    pickle.dump(list(storages), out, protocol=2)
    out.write(data)
    _Ids(out, protocol=2).dump(obj)
    out.seek(0)
    return out


def test_a_pickled_call_is_refused_without_running(tmp_path):
    marker = tmp_path / "ran"
    f = _checkpoint({"w": _Call(open, str(marker), "w")})
    with pytest.raises(pickle.UnpicklingError, match="Unsupported global: GLOBAL io.open was not an allowed"):
        G.load(f)
    assert not marker.exists()


@pytest.mark.parametrize("pid", [("tensor", 0, 0, (100,), (4,), False, False),
                                 ("tensor", 0, -4, (2,), (4,), False, False),
                                 ("tensor", 0, 0, (2, 2), (4, -8), False, False),
                                 ("tensor", 0, 2, (1,), (4,), False, False),
                                 ("dtype", "Tensor"), ("storage", 0)])
def test_a_tensor_outside_its_storage_or_an_unknown_id_is_refused(pid):
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        G.load(_checkpoint(_Id(pid), [("float32", 8)], bytes(8)))


@pytest.mark.parametrize("storages", [[("object", 8)], [("float32", 6)], [("float32", 80)]])
def test_a_storage_of_another_dtype_size_or_length_is_refused(storages):
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        G.load(_checkpoint([], storages, bytes(8)))


def test_a_file_torch_save_did_not_write_is_not_read():
    with pytest.raises(NotImplementedError, match="did not write"):
        G.load(io.BytesIO(b"PK\x03\x04 a zip file"))


def test_weights_only_false_is_not_implemented():
    with pytest.raises(NotImplementedError, match="run code from the file"):
        G.load(io.BytesIO(), weights_only=False)
