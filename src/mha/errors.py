"""Exceptions that say what went wrong and stay catchable as PyTorch's.

:class:`torch.nn.MultiheadAttention` reports a bad input with whatever its implementation
happens to raise: an ``assert`` (:class:`AssertionError`), a failed ``reshape``
(:class:`RuntimeError`) or a missing attribute (:class:`AttributeError`). ``mha`` raises the
exception a Python user expects (:class:`ValueError` for a wrong value or shape,
:class:`TypeError` for a wrong type) with a message that gives the expected and the received
value, *and* derives it from the class PyTorch raises for the same input, so an ``except``
clause written for PyTorch's module catches it too.

Examples
--------
>>> import torch, mha
>>> try:
...     mha.MultiHeadAttention(64, 6)
... except AssertionError as err:  # what torch.nn.MultiheadAttention raises here
...     print(type(err).__name__, "is a ValueError:", isinstance(err, ValueError))
ValueAssertionError is a ValueError: True
"""

from __future__ import annotations

__all__ = [
    "TypeAssertionError",
    "TypeAttributeError",
    "TypeRuntimeError",
    "ValueAssertionError",
    "ValueRuntimeError",
]


class ValueAssertionError(ValueError, AssertionError):
    """A wrong value or shape, where PyTorch fails an ``assert``."""


class ValueRuntimeError(ValueError, RuntimeError):
    """A wrong value or shape, where PyTorch raises :class:`RuntimeError`."""


class TypeAssertionError(TypeError, AssertionError):
    """A wrong type (such as an integer mask), where PyTorch fails an ``assert``."""


class TypeRuntimeError(TypeError, RuntimeError):
    """A wrong type (such as an integer mask), where PyTorch raises :class:`RuntimeError`."""


class TypeAttributeError(TypeError, AttributeError):
    """Not a tensor where a tensor is expected, where PyTorch raises :class:`AttributeError`."""
