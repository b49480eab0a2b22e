"""mha: multi-head attention step by step, proven equal to PyTorch's.

Dimension letters used throughout: ``B`` batch, ``L`` target length, ``S`` source length,
``E`` model width, ``H`` heads, ``D = E // H`` head width; after the lesson, ``H_kv``
key/value heads and ``G = H // H_kv`` query heads per key/value head.

Messages (errors, :mod:`mha.check`'s reports, the shape table) are in English or Chinese:
``lang=`` where a function takes it, else :func:`set_language`'s choice, else the environment
variable ``MHA_LANG``, else the locale (``LANG=zh_CN.UTF-8`` means Chinese), else English.
"""

from importlib.metadata import PackageNotFoundError, version

from mha import check as check  # feedback on a learner's own steps, as mha.check
from mha import errors as errors  # the exception classes, as mha.errors
from mha._i18n import set_language
from mha.cost import (
    AttentionFlops,
    LargestTensor,
    attention_flops,
    attention_weight_elements,
    kv_cache_bytes,
    parameter_count,
)
from mha.device import available_devices, get_device
from mha.functional import (
    additive_mask,
    causal_mask,
    check_heads,
    merge_heads,
    multi_head_attention,
    project,
    project_qkv,
    scaled_dot_product_attention,
    split_heads,
)
from mha.gqa import GroupedQueryAttention, KVCache, grouped_query_attention, repeat_kv
from mha.module import MultiHeadAttention
from mha.scale import RowStats, ScaleMeasurement, measure_scale
from mha.tiled import tiled_attention
from mha.trace import ShapeStep, format_shape_table, trace_shapes

try:
    __version__ = version("mha")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0+unknown"

__all__ = [
    "AttentionFlops",
    "GroupedQueryAttention",
    "KVCache",
    "LargestTensor",
    "MultiHeadAttention",
    "RowStats",
    "ScaleMeasurement",
    "ShapeStep",
    "__version__",
    "additive_mask",
    "attention_flops",
    "attention_weight_elements",
    "available_devices",
    "causal_mask",
    "check",
    "check_heads",
    "format_shape_table",
    "get_device",
    "grouped_query_attention",
    "kv_cache_bytes",
    "measure_scale",
    "merge_heads",
    "multi_head_attention",
    "parameter_count",
    "project",
    "project_qkv",
    "repeat_kv",
    "scaled_dot_product_attention",
    "set_language",
    "split_heads",
    "tiled_attention",
    "trace_shapes",
]
