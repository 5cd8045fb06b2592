"""ChainList: a link made of a list of child links (public as ``chainer.ChainList``)."""

from __future__ import annotations

import collections.abc
from collections.abc import Iterator
from typing import Any

from chainer import device_resident
from chainer import link as _link


def _check_link(owner: Any, value: Any, where: str) -> None:
    if not isinstance(value, _link.Link):
        raise TypeError(f"{type(owner).__name__}.{where}: expected a Link, got {type(value).__name__}")


class ChainList(_link.Link, collections.abc.MutableSequence):  # type: ignore[misc]
    """A link made of a list of child links.

    ``ChainList(*links)``

    It behaves like a list of links (indexing, ``len``, iteration, ``append``,
    ``insert``, ...). The children are named by their position: ``'0'``, ``'1'``,...;
    these are the keys serializers use.

    Args:
        links: Initial child links.

    Example:
        >>> class MyChain2(chainer.ChainList):
        ...     def __init__(self):
        ...         super().__init__(L.Linear(4, 3), L.Linear(3, 2))
        ...     def forward(self, x):
        ...         return self[1](self[0](x))
    """

    def __init__(self, *links: _link.Link) -> None:
        super().__init__()
        object.__setattr__(self, "_children", [])
        for child in links:
            self.add_link(child)

    def __setattr__(self, name: str, value: Any) -> None:
        if self._within_init_scope and isinstance(value, _link.Link):
            raise TypeError(
                f"{type(self).__name__}: cannot register link {name!r} inside 'with chainlist.init_scope():'; "
                "use add_link() or append()"
            )
        super().__setattr__(name, value)

    def _rename_children(self) -> None:
        for index, child in enumerate(self._children):
            object.__setattr__(child, "name", str(index))

    # -- the list interface -------------------------------------------------------------

    def __getitem__(self, index: Any) -> Any:
        return self._children[index]

    def __setitem__(self, index: Any, value: Any) -> None:
        if isinstance(index, slice):
            value = list(value)
            for link in value:
                _check_link(self, link, "__setitem__")
        else:
            _check_link(self, value, "__setitem__")
        # List semantics, slices included (an extended slice needs as many links as it selects).
        self._children[index] = value
        self._rename_children()

    def __delitem__(self, index: Any) -> None:
        del self._children[index]
        self._rename_children()

    def __len__(self) -> int:
        return len(self._children)

    def __iter__(self) -> Iterator[_link.Link]:
        return iter(self._children)

    def insert(self, index: int, link: _link.Link) -> None:
        """Insert a child link at ``index`` (the following children are renamed)."""
        _check_link(self, link, "insert")
        self._children.insert(index, link)
        self._rename_children()

    def add_link(self, link: _link.Link) -> None:
        """Append a child link (same as :meth:`append`)."""
        _check_link(self, link, "add_link")
        object.__setattr__(link, "name", str(len(self._children)))
        self._children.append(link)

    # -- traversal -----------------------------------------------------------------------

    def params(self, include_uninit: bool = True) -> Iterator[Any]:
        yield from super().params(include_uninit)
        for child in self._children:
            yield from child.params(include_uninit)

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, Any]]:
        yield from super().namedparams(include_uninit)
        for index, child in enumerate(self._children):
            prefix = f"/{index}"
            for path, param in child.namedparams(include_uninit):
                yield prefix + path, param

    def links(self, skipself: bool = False) -> Iterator[_link.Link]:
        if not skipself:
            yield self
        for child in self._children:
            yield from child.links()

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, _link.Link]]:
        if not skipself:
            yield "/", self
        for index, child in enumerate(self._children):
            prefix = f"/{index}"
            yield prefix, child
            for path, descendant in child.namedlinks(skipself=True):
                yield prefix + path, descendant

    def children(self) -> Iterator[_link.Link]:
        return iter(list(self._children))

    # -- copying, gradients, devices, serialization ----------------------------------------

    def _share_copy_fixup(self) -> None:
        super()._share_copy_fixup()
        copies = []
        for index, child in enumerate(self._children):
            child_copy = child.copy("share")
            object.__setattr__(child_copy, "name", str(index))
            copies.append(child_copy)
        self.__dict__["_children"] = copies

    def _source_children(self, other: _link.Link, where: str) -> list[_link.Link]:
        theirs = getattr(other, "_children", None)
        if not isinstance(theirs, list) or len(theirs) != len(self._children):
            count = len(theirs) if isinstance(theirs, list) else "no"
            raise ValueError(
                f"{type(self).__name__}.{where}: the source has {count} child links, this ChainList has "
                f"{len(self._children)}"
            )
        return theirs

    def copyparams(self, link: _link.Link, copy_persistent: bool = True) -> None:
        super().copyparams(link, copy_persistent)
        for mine, theirs in zip(self._children, self._source_children(link, "copyparams")):
            mine.copyparams(theirs, copy_persistent)

    def addgrads(self, link: _link.Link) -> None:
        super().addgrads(link)
        for mine, theirs in zip(self._children, self._source_children(link, "addgrads")):
            mine.addgrads(theirs)

    def device_resident_accept(self, visitor: device_resident.DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        for child in self._children:
            child.device_resident_accept(visitor)

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        for index, child in enumerate(self._children):
            child.serialize(serializer[str(index)])

    def __repr__(self) -> str:
        return _link._format_children(self, [(str(i), child) for i, child in enumerate(self._children)])

    __str__ = __repr__
