"""Chain: a link made of named child links (public as ``chainer.Chain``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from chainer import _parameter, device_resident
from chainer import link as _link


class Chain(_link.Link):
    """A link made of named child links.

    ``Chain(**links)``

    Register children by assigning links inside ``with self.init_scope():``. A chain
    is itself a link, so chains nest into hierarchies; paths name the parameters
    (``/l1/W``) and are the keys serializers use.

    Args:
        links: The old (Chainer v1) way to register children: ``name=link``.

    Example:
        >>> class MyChain(chainer.Chain):
        ...     def __init__(self):
        ...         super().__init__()
        ...         with self.init_scope():
        ...             self.l1 = L.Linear(4, 3)
        ...             self.l2 = L.Linear(3, 2)
        ...     def forward(self, x):
        ...         return self.l2(self.l1(x))
    """

    def __init__(self, **links: _link.Link) -> None:
        super().__init__()
        object.__setattr__(self, "_children", set())
        for name, link in links.items():
            self.add_link(name, link)

    def __getitem__(self, name: str) -> Any:
        """The attribute (usually a child link) called ``name``."""
        return getattr(self, name)

    def __setattr__(self, name: str, value: Any) -> None:
        children = self.__dict__.get("_children")
        if isinstance(value, _link.Link):
            if self._within_init_scope or (children is not None and name in children):
                if children is None:
                    raise RuntimeError(
                        f"{type(self).__name__}: call super().__init__() before registering link {name!r}"
                    )
                if name not in children and hasattr(self, name):
                    raise AttributeError(
                        f"{type(self).__name__}: cannot register link {name!r}: an attribute with this name exists"
                    )
                object.__setattr__(value, "name", name)
                children.add(name)
        elif children is not None and name in children:
            children.discard(name)
        super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        self._children.discard(name)
        super().__delattr__(name)

    def add_link(self, name: str, link: _link.Link) -> None:
        """Register ``link`` as the child called ``name`` (the old way; prefer
        assigning in :meth:`init_scope`)."""
        if name in self.__dict__:
            raise AttributeError(f"{type(self).__name__}.add_link: cannot register link {name!r}: attribute exists")
        if not isinstance(link, _link.Link):
            raise TypeError(f"{type(self).__name__}.add_link: expected a Link for {name!r}, got {type(link).__name__}")
        with self.init_scope():
            setattr(self, name, link)

    def params(self, include_uninit: bool = True) -> Iterator[_parameter.Parameter]:
        yield from super().params(include_uninit)
        d = self.__dict__
        for name in sorted(self._children):
            yield from d[name].params(include_uninit)

    def namedparams(self, include_uninit: bool = True) -> Iterator[tuple[str, _parameter.Parameter]]:
        yield from super().namedparams(include_uninit)
        d = self.__dict__
        for name in sorted(self._children):
            prefix = "/" + name
            for path, param in d[name].namedparams(include_uninit):
                yield prefix + path, param

    def links(self, skipself: bool = False) -> Iterator[_link.Link]:
        if not skipself:
            yield self
        d = self.__dict__
        for name in sorted(self._children):
            yield from d[name].links()

    def namedlinks(self, skipself: bool = False) -> Iterator[tuple[str, _link.Link]]:
        if not skipself:
            yield "/", self
        d = self.__dict__
        for name in sorted(self._children):
            child = d[name]
            prefix = "/" + name
            yield prefix, child
            for path, link in child.namedlinks(skipself=True):
                yield prefix + path, link

    def children(self) -> Iterator[_link.Link]:
        d = self.__dict__
        for name in sorted(self._children):
            yield d[name]

    def _share_copy_fixup(self) -> None:
        super()._share_copy_fixup()
        d = self.__dict__
        d["_children"] = set(self._children)
        for name in self._children:
            child = d[name].copy("share")
            object.__setattr__(child, "name", name)
            d[name] = child

    def copyparams(self, link: _link.Link, copy_persistent: bool = True) -> None:
        super().copyparams(link, copy_persistent)
        src = link.__dict__
        d = self.__dict__
        for name in sorted(self._children):
            if not isinstance(src.get(name), _link.Link):
                raise ValueError(f"{type(self).__name__}.copyparams: the source link has no child link {name!r}")
            d[name].copyparams(src[name], copy_persistent)

    def addgrads(self, link: _link.Link) -> None:
        super().addgrads(link)
        src = link.__dict__
        d = self.__dict__
        for name in sorted(self._children):
            if not isinstance(src.get(name), _link.Link):
                raise ValueError(f"{type(self).__name__}.addgrads: the source link has no child link {name!r}")
            d[name].addgrads(src[name])

    def device_resident_accept(self, visitor: device_resident.DeviceResidentsVisitor) -> None:
        super().device_resident_accept(visitor)
        d = self.__dict__
        for name in sorted(self._children):
            d[name].device_resident_accept(visitor)

    def serialize(self, serializer: Any) -> None:
        super().serialize(serializer)
        d = self.__dict__
        for name in sorted(self._children):
            d[name].serialize(serializer[name])

    def __repr__(self) -> str:
        d = self.__dict__
        return _link._format_children(self, [(name, d[name]) for name in sorted(self._children)])

    __str__ = __repr__
