"""Write the small intersphinx inventories the site links through, so the build never fetches one.

Run ``python docs/_intersphinx/make_inventories.py`` after citing a new torch or Python name in
the docs or docstrings, and commit the two ``.inv`` files. They are written with Sphinx's own
inventory writer and point at the public documentation pages of each name.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from sphinx.util.inventory import InventoryFile

HERE = Path(__file__).parent

# (name, role, page relative to the base URL); the anchor is the name unless the page has one
TORCH = "https://docs.pytorch.org/docs/stable/"
_GEN = "generated/{}.html"
TORCH_NAMES = [
    ("torch", "module", "torch.html"),
    ("torch.Tensor", "class", "tensors.html"),
    ("torch.Size", "class", "size.html"),
    ("torch.dtype", "class", "tensor_attributes.html"),
    ("torch.device", "class", "tensor_attributes.html"),
    ("torch.float32", "data", "tensor_attributes.html"),
    ("torch.float64", "data", "tensor_attributes.html"),
    ("torch.bool", "data", "tensor_attributes.html"),
    ("torch.manual_seed", "function", _GEN),
    ("torch.randn", "function", _GEN),
    ("torch.empty", "function", _GEN),
    ("torch.zeros", "function", _GEN),
    ("torch.ones", "function", _GEN),
    ("torch.cat", "function", _GEN),
    ("torch.chunk", "function", _GEN),
    ("torch.matmul", "function", _GEN),
    ("torch.bmm", "function", _GEN),
    ("torch.einsum", "function", _GEN),
    ("torch.compile", "function", "generated/torch.compile.html"),
    ("torch.jit.script", "function", "generated/torch.jit.script.html"),
    ("torch.jit.trace", "function", "generated/torch.jit.trace.html"),
    ("torch.export.export", "function", "export.html"),
    ("torch.func", "module", "func.html"),
    ("torch.func.vmap", "function", "generated/torch.func.vmap.html"),
    ("torch.softmax", "function", _GEN),
    ("torch.triu", "function", _GEN),
    ("torch.allclose", "function", _GEN),
    ("torch.no_grad", "class", _GEN),
    ("torch.get_default_device", "function", _GEN),
    ("torch.cuda.is_available", "function", _GEN),
    ("torch.Tensor.view", "method", _GEN),
    ("torch.Tensor.reshape", "method", _GEN),
    ("torch.Tensor.transpose", "method", _GEN),
    ("torch.Tensor.contiguous", "method", _GEN),
    ("torch.Tensor.is_contiguous", "method", _GEN),
    ("torch.Tensor.chunk", "method", _GEN),
    ("torch.Tensor.masked_fill", "method", _GEN),
    ("torch.nn.Module", "class", _GEN),
    ("torch.nn.Linear", "class", _GEN),
    ("torch.nn.MultiheadAttention", "class", _GEN),
    ("torch.nn.MultiheadAttention.forward", "method", "generated/torch.nn.MultiheadAttention.html"),
    ("torch.nn.Transformer", "class", _GEN),
    ("torch.nn.TransformerEncoderLayer", "class", _GEN),
    (
        "torch.nn.Parameter",
        "class",
        "generated/torch.nn.parameter.Parameter.html#torch.nn.parameter.Parameter",
    ),
    ("torch.nn.parameter.Parameter", "class", _GEN),
    ("torch.nn.utils.skip_init", "function", _GEN),
    ("torch.nn.init.xavier_uniform_", "function", "nn.init.html"),
    ("torch.nn.init.constant_", "function", "nn.init.html"),
    ("torch.nn.functional.linear", "function", _GEN),
    ("torch.nn.functional.softmax", "function", _GEN),
    ("torch.nn.functional.dropout", "function", _GEN),
    ("torch.nn.functional.scaled_dot_product_attention", "function", _GEN),
    ("torch.nn.attention.bias.causal_upper_left", "function", _GEN),
    ("torch.nn.attention.bias.causal_lower_right", "function", _GEN),
    ("torch.nn.functional.multi_head_attention_forward", "function", _GEN),
    ("torch.testing.assert_close", "function", "testing.html"),
    ("torch.utils.flop_counter.FlopCounterMode", "class", _GEN),
]

PYTHON = "https://docs.python.org/3/"
PYTHON_NAMES = [
    ("int", "class", "library/functions.html"),
    ("float", "class", "library/functions.html"),
    ("bool", "class", "library/functions.html"),
    ("str", "class", "library/stdtypes.html"),
    ("tuple", "class", "library/stdtypes.html"),
    ("list", "class", "library/stdtypes.html"),
    ("dict", "class", "library/stdtypes.html"),
    ("None", "data", "library/constants.html"),
    ("ValueError", "exception", "library/exceptions.html"),
    ("TypeError", "exception", "library/exceptions.html"),
    ("RuntimeError", "exception", "library/exceptions.html"),
    ("AssertionError", "exception", "library/exceptions.html"),
    ("dataclasses.dataclass", "function", "library/dataclasses.html"),
    ("math.sqrt", "function", "library/math.html"),
    ("os.environ", "data", "library/os.html"),
    ("importlib.metadata.version", "function", "library/importlib.metadata.html"),
]


class _Domain:
    """What the inventory writer reads from a Sphinx domain: a name and its objects."""

    name = "py"

    def __init__(self, entries: list[tuple[str, str, str]]) -> None:
        self.entries = entries

    def get_objects(self):
        for name, role, page in self.entries:
            page, _, anchor = page.format(name).partition("#")
            # fullname, dispname, type, docname, anchor, priority
            yield name, name, role, page.removesuffix(".html"), anchor or name, 1


def write(path: Path, project: str, version: str, entries: list[tuple[str, str, str]]) -> None:
    """Write ``entries`` to ``path`` with :meth:`sphinx.util.inventory.InventoryFile.dump`."""
    env = SimpleNamespace(
        config=SimpleNamespace(project=project, version=version),
        domains=SimpleNamespace(sorted=lambda: [_Domain(entries)]),
    )
    builder = SimpleNamespace(get_target_uri=lambda docname: docname + ".html")
    InventoryFile.dump(path, env, builder)
    with path.open("rb") as stream:  # read back: every name must resolve
        inventory = InventoryFile.load(stream, "", lambda base, uri: uri)
    data = getattr(inventory, "data", inventory)  # a dict of role -> name -> entry
    found = {name for objects in data.values() for name in objects}
    missing = {name for name, _, _ in entries} - found
    if missing:
        raise RuntimeError(f"expected every name in {path.name}, missing {sorted(missing)}")
    print(f"{path.name}: {len(found)} names")


if __name__ == "__main__":
    write(HERE / "torch.inv", "PyTorch", "stable", TORCH_NAMES)
    write(HERE / "python.inv", "Python", "3", PYTHON_NAMES)
