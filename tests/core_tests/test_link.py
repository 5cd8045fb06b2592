"""Tests of chainer.Link, chainer.Chain and chainer.ChainList."""

import copy
import pickle

import numpy
import pytest

import chainer
import chainer.functions as F
from chainer import initializers


class Linear(chainer.Link):
    """A small Linear link for these tests (chainer.links is another distribution)."""

    def __init__(self, in_size, out_size=None):
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        self.out_size = out_size
        with self.init_scope():
            shape = None if in_size is None else (out_size, in_size)
            self.W = chainer.Parameter(initializers.Constant(0.5), shape)
            self.b = chainer.Parameter(0.0, (out_size,))

    def forward(self, x):
        if self.W.array is None:
            self.W.initialize((self.out_size, x.shape[1]))
        return F.linear(x, self.W, self.b)


class Counter(chainer.Initializer):
    """Fills 1, 2, 3, ... continuing across calls: each initialization differs."""

    def __init__(self):
        super().__init__()
        self.next = 1.0

    def __call__(self, array):
        values = numpy.arange(self.next, self.next + array.size).reshape(array.shape)
        array[...] = values
        self.next += array.size


class MyChain(chainer.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Linear(4, 3)
            self.l2 = Linear(3, 2)

    def forward(self, x):
        h = self.l1(x)
        return self.l2(h)


class MyChain2(chainer.ChainList):
    def __init__(self):
        super().__init__(Linear(4, 3), Linear(3, 2))

    def forward(self, x):
        h = self[0](x)
        return self[1](h)


class Classifier(chainer.Chain):
    def __init__(self, predictor):
        super().__init__()
        with self.init_scope():
            self.predictor = predictor

    def forward(self, x):
        return self.predictor(x)


class MLP(chainer.Chain):
    def __init__(self, n_units, n_out):
        super().__init__()
        with self.init_scope():
            self.l1 = Linear(None, n_units)
            self.l2 = Linear(None, n_units)
            self.l3 = Linear(None, n_out)

    def forward(self, x):
        h1 = F.relu(self.l1(x))
        h2 = F.relu(self.l2(h1))
        return self.l3(h2)


def _reference_mlp(x, params):
    h = x
    for W, b in params:
        h = h @ W.T + b
    return h


# -- the examples of the documentation ------------------------------------------------------


def test_docs_my_chain_forward_matches_numpy():
    model = MyChain()
    x = numpy.random.uniform(-1, 1, (2, 4)).astype(numpy.float32)
    y = model(x)
    expected = _reference_mlp(x, [(model.l1.W.array, model.l1.b.array), (model.l2.W.array, model.l2.b.array)])
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)
    assert [name for name, _ in model.namedparams()] == ["/l1/W", "/l1/b", "/l2/W", "/l2/b"]
    assert model.l1.name == "l1" and model.l2.name == "l2"


def test_docs_my_chain2_chain_list():
    model = MyChain2()
    x = numpy.random.uniform(-1, 1, (2, 4)).astype(numpy.float32)
    y = model(x)
    expected = _reference_mlp(x, [(model[0].W.array, model[0].b.array), (model[1].W.array, model[1].b.array)])
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)
    assert [name for name, _ in model.namedparams()] == ["/0/W", "/0/b", "/1/W", "/1/b"]
    assert len(model) == 2


def test_docs_eltwise_param_product():
    class EltwiseParamProduct(chainer.Link):
        def __init__(self, shape):
            super().__init__()
            with self.init_scope():
                self.W = chainer.Parameter(initializers.Constant(2.0), shape)

        def __call__(self, x):
            return self.W * x

    link = EltwiseParamProduct((3,))
    x = numpy.array([1.0, 2.0, 3.0], numpy.float32)
    numpy.testing.assert_array_equal(link(x).array, 2 * x)
    params = list(link.params())
    assert len(params) == 1 and params[0] is link.W


def test_docs_naming_rule_namedlinks():
    model = Classifier(MLP(100, 10))
    names = [name for name, _ in model.namedlinks(skipself=True)]
    assert names == ["/predictor", "/predictor/l1", "/predictor/l2", "/predictor/l3"]


def test_docs_v1_style_link_shapes():
    class MyLink(chainer.Link):
        def __init__(self):
            super().__init__(W=(10, 5), b=(5,))
            initializers.Constant(0.05)(self.W.array)
            self.b.array.fill(0)

    link = MyLink()
    assert link.W.shape == (10, 5) and link.W.dtype == numpy.float32
    assert link.b.shape == (5,)
    numpy.testing.assert_array_equal(link.W.array, numpy.full((10, 5), 0.05, numpy.float32))
    assert sorted(name for name, _ in link.namedparams()) == ["/W", "/b"]


def test_v1_style_shape_with_dtype_and_nan_fill():
    link = chainer.Link(W=((2, 3), numpy.float64), v=4)
    assert link.W.dtype == numpy.float64 and link.W.shape == (2, 3)
    assert numpy.isnan(link.W.array).all()
    assert link.v.shape == (4,)


def test_v1_style_bad_shape():
    with pytest.raises(TypeError, match="'W' must be a shape"):
        chainer.Link(W="big")


def test_docs_v1_style_chain_kwargs():
    class MyMLP(chainer.Chain):
        def __init__(self):
            super().__init__(layer1=Linear(None, 20), layer2=Linear(None, 30))

    model = MyMLP()
    assert [name for name, _ in model.namedlinks()] == ["/", "/layer1", "/layer2"]
    assert model["layer1"] is model.layer1


# -- registration ---------------------------------------------------------------------------


def test_init_scope_registers_only_inside():
    link = chainer.Link()
    with link.init_scope():
        assert link.within_init_scope
        link.p = chainer.Parameter(0.0, (2,))
    assert not link.within_init_scope
    link.q = chainer.Parameter(0.0, (3,))  # outside: a plain attribute
    assert [name for name, _ in link.namedparams()] == ["/p"]
    assert link.p.name == "p"
    assert link.q.name is None


def test_init_scope_is_restored_after_exception():
    link = chainer.Link()
    with pytest.raises(RuntimeError):
        with link.init_scope():
            raise RuntimeError("boom")
    assert not link.within_init_scope


def test_chain_registers_links_only_inside_init_scope():
    chain = chainer.Chain()
    with chain.init_scope():
        chain.a = Linear(2, 2)
    chain.b = Linear(2, 2)
    assert [name for name, _ in chain.namedlinks(skipself=True)] == ["/a"]
    assert [c.name for c in chain.children()] == ["a"]


def test_reassigning_a_registered_link_or_param_replaces_it():
    chain = MyChain()
    new = Linear(4, 3)
    chain.l1 = new  # outside init_scope: still the registered child
    assert chain.l1 is new and new.name == "l1"
    assert list(chain.children())[0] is new
    link = chain.l2
    param = chainer.Parameter(1.0, (2, 3))
    link.W = param
    assert list(link.params())[0] is param


def test_replacing_registered_param_by_non_param_unregisters_it():
    link = Linear(2, 3)
    link.W = None
    assert [name for name, _ in link.namedparams()] == ["/b"]


def test_register_link_over_existing_attribute_is_an_error():
    chain = chainer.Chain()
    chain.x = 1
    with pytest.raises(AttributeError, match="'x'"):
        with chain.init_scope():
            chain.x = Linear(2, 2)
    with pytest.raises(AttributeError, match="'params'"):
        with chain.init_scope():
            chain.params = Linear(2, 2)


def test_delattr_unregisters():
    chain = MyChain()
    del chain.l1
    assert [name for name, _ in chain.namedparams()] == ["/l2/W", "/l2/b"]
    link = chain.l2
    del link.W
    assert [name for name, _ in link.namedparams()] == ["/b"]
    link.add_persistent("count", 3)
    del link.count
    assert not hasattr(link, "count")
    # registering the name again is allowed
    link.add_persistent("count", 4)
    assert link.count == 4


def test_add_param_and_errors():
    link = chainer.Link()
    link.add_param("W", (2, 3))
    link.add_param("u", None, dtype=numpy.float64)
    link.add_param("c", (2,), initializer=initializers.Constant(3.0))
    assert link.W.shape == (2, 3) and numpy.isnan(link.W.array).all()
    assert link.u.array is None and link.u.dtype == numpy.float64
    numpy.testing.assert_array_equal(link.c.array, [3.0, 3.0])
    with pytest.raises(AttributeError, match="'W'"):
        link.add_param("W", (1,))


def test_add_link_and_errors():
    chain = chainer.Chain()
    chain.add_link("l", Linear(2, 2))
    assert chain.l.name == "l"
    with pytest.raises(AttributeError, match="'l'"):
        chain.add_link("l", Linear(2, 2))
    with pytest.raises(TypeError, match="expected a Link"):
        chain.add_link("m", object())


def test_persistents():
    link = chainer.Link()
    link.add_persistent("avg", numpy.zeros(3))
    link.N = 5
    link.register_persistent("N")
    assert link._persistent == {"avg", "N"}
    with pytest.raises(AttributeError, match="'avg'"):
        link.add_persistent("avg", 1)
    with pytest.raises(AttributeError, match="no such attribute"):
        link.register_persistent("missing")
    # persistents are not parameters
    assert list(link.params()) == []


def test_params_include_uninit_and_order():
    chain = chainer.Chain()
    with chain.init_scope():
        chain.z = Linear(None, 2)
        chain.a = Linear(3, 2)
        chain.p = chainer.Parameter(1.0, (1,))
    names = [name for name, _ in chain.namedparams()]
    assert names == ["/p", "/a/W", "/a/b", "/z/W", "/z/b"]
    names = [name for name, _ in chain.namedparams(include_uninit=False)]
    assert names == ["/p", "/a/W", "/a/b", "/z/b"]
    assert len(list(chain.params(include_uninit=False))) == 4


def test_links_and_namedlinks():
    model = Classifier(MyChain())
    links = list(model.links())
    assert links[0] is model and links[1] is model.predictor
    assert links[2] is model.predictor.l1 and links[3] is model.predictor.l2
    assert list(model.links(skipself=True))[0] is model.predictor
    names = [name for name, _ in model.namedlinks()]
    assert names == ["/", "/predictor", "/predictor/l1", "/predictor/l2"]
    assert list(Linear(2, 2).children()) == []


def test_chain_list_mutation_renames_children():
    cl = chainer.ChainList(Linear(2, 2))
    b, c = Linear(2, 2), Linear(2, 2)
    cl.append(b)
    cl.insert(0, c)
    assert [child.name for child in cl] == ["0", "1", "2"]
    assert cl[0] is c and cl[2] is b
    del cl[0]
    assert cl[1] is b and b.name == "1"
    d = Linear(2, 2)
    cl[0] = d
    assert cl[0] is d and d.name == "0"
    assert cl.pop() is b and len(cl) == 1
    with pytest.raises(TypeError, match="expected a Link"):
        cl.append(F.relu)
    with pytest.raises(TypeError, match="init_scope"):
        with cl.init_scope():
            cl.x = Linear(2, 2)
    with cl.init_scope():
        cl.p = chainer.Parameter(0.0, (2,))  # parameters are fine
    assert [name for name, _ in cl.namedparams()][0] == "/p"


# -- gradients ----------------------------------------------------------------------------------


def test_cleargrads_and_zerograds():
    model = MyChain()
    x = numpy.ones((1, 4), numpy.float32)
    F.sum(model(x)).backward()
    assert all(p.grad is not None for p in model.params())
    model.cleargrads()
    assert all(p.grad is None for p in model.params())
    # Deprecated as in Chainer 7 (one warning for the call), from inside Chainer.
    with pytest.warns(DeprecationWarning) as record:
        model.zerograds()
    assert [str(w.message) for w in record] == ["Link.zerograds is deprecated. Use Link.cleargrads instead."]
    assert record[0].filename.endswith("link.py")
    for p in model.params():
        numpy.testing.assert_array_equal(p.grad, numpy.zeros_like(p.array))


def test_addgrads_adds_source_gradients():
    a, b = MyChain(), MyChain()
    for p in a.params():
        p.grad = numpy.ones_like(p.array)
    for p in b.params():
        p.grad = numpy.full_like(p.array, 2.0)
    a.addgrads(b)
    for p in a.params():
        numpy.testing.assert_array_equal(p.grad, numpy.full_like(p.array, 3.0))


def test_count_params():
    model = MyChain()
    assert model.count_params() == 4 * 3 + 3 + 3 * 2 + 2
    lazy = Linear(None, 5)
    with pytest.warns(UserWarning, match="'/W' is not initialized"):
        assert lazy.count_params() == 5


class _Rule:
    def __init__(self):
        self.enabled = True


def test_enable_disable_update():
    model = MyChain()
    assert not model.update_enabled  # no optimizer yet
    for p in model.params():
        p.update_rule = _Rule()
    assert model.update_enabled
    model.disable_update()
    assert all(not p.update_rule.enabled for p in model.params())
    assert not model.update_enabled
    model.l1.enable_update()
    assert model.update_enabled
    assert all(p.update_rule.enabled for p in model.l1.params())
    assert all(not p.update_rule.enabled for p in model.l2.params())


# -- copying ----------------------------------------------------------------------------------------


def test_copy_share_shares_arrays():
    model = MyChain()
    model.l1.add_persistent("stat", numpy.zeros(2))
    model.name = "orig"
    c = model.copy()
    assert c is not model and c.name is None
    assert c.l1 is not model.l1 and c.l1.W is not model.l1.W
    assert c.l1.W.array is model.l1.W.array
    model.l1.W.array[...] = 7.0
    numpy.testing.assert_array_equal(c.l1.W.array, numpy.full((3, 4), 7.0))
    assert c.l1.stat is model.l1.stat
    assert [name for name, _ in c.namedparams()] == [name for name, _ in model.namedparams()]
    assert c.l1.name == "l1"
    # the copy has its own registration sets
    with c.l1.init_scope():
        c.l1.extra = chainer.Parameter(0.0, (1,))
    assert "extra" not in model.l1._params


def test_copy_copy_is_deep_with_equal_values():
    model = MyChain()
    model.l1.W.array[...] = numpy.arange(12).reshape(3, 4)
    c = model.copy(mode="copy")
    assert c.l1.W.array is not model.l1.W.array
    numpy.testing.assert_array_equal(c.l1.W.array, model.l1.W.array)
    c.l1.W.array[...] = 0
    assert model.l1.W.array[0, 1] == 1


def test_copy_init_reinitializes_with_initializer():
    link = chainer.Link()
    init = Counter()
    with link.init_scope():
        link.W = chainer.Parameter(init, (2, 2))
        link.u = chainer.Parameter(init, None)
    numpy.testing.assert_array_equal(link.W.array, [[1, 2], [3, 4]])
    c = link.copy(mode="init")
    # the copy's initializer is a deep copy that continues the sequence: 5, 6, 7, 8
    numpy.testing.assert_array_equal(c.W.array, [[5, 6], [7, 8]])
    numpy.testing.assert_array_equal(link.W.array, [[1, 2], [3, 4]])
    assert c.u.array is None
    assert c.W.dtype == link.W.dtype


def test_copy_bad_mode():
    with pytest.raises(ValueError, match="mode must be one of"):
        MyChain().copy(mode="deep")


def test_copy_chain_list_share():
    cl = MyChain2()
    c = cl.copy()
    assert c[0] is not cl[0] and c[0].W.array is cl[0].W.array
    assert [child.name for child in c] == ["0", "1"]
    c.append(Linear(2, 2))
    assert len(cl) == 2


def test_copyparams_copies_values_and_persistents():
    a, b = MyChain(), MyChain()
    for i, p in enumerate(b.params()):
        p.array[...] = i + 1
    a.l1.add_persistent("mean", numpy.zeros(3))
    b.l1.add_persistent("mean", numpy.arange(3.0))
    a.l1.add_persistent("n", 0)
    b.l1.add_persistent("n", 9)
    arrays_before = [p.array for p in a.params()]
    a.copyparams(b)
    for pa, pb, before in zip(a.params(), b.params(), arrays_before):
        numpy.testing.assert_array_equal(pa.array, pb.array)
        assert pa.array is before  # copied in place
    numpy.testing.assert_array_equal(a.l1.mean, [0.0, 1.0, 2.0])
    assert a.l1.n == 9
    c = MyChain()
    c.l1.add_persistent("mean", numpy.zeros(3))
    c.l1.add_persistent("n", 0)
    c.copyparams(b, copy_persistent=False)
    numpy.testing.assert_array_equal(c.l1.mean, numpy.zeros(3))
    assert c.l1.n == 0


def test_copyparams_structure_errors():
    with pytest.raises(ValueError, match="shape"):
        Linear(2, 3).copyparams(Linear(3, 3))
    with pytest.raises(ValueError, match="child link 'l1'"):
        MyChain().copyparams(Classifier(Linear(2, 2)))
    with pytest.raises(ValueError, match="child links"):
        MyChain2().copyparams(chainer.ChainList(Linear(4, 3)))
    with pytest.raises(TypeError, match="expected a Link"):
        MyChain().copyparams(object())


def test_copyparams_initializes_uninitialized_destination():
    dst, src = Linear(None, 2), Linear(3, 2)
    src.W.array[...] = 4.0
    dst.copyparams(src)
    numpy.testing.assert_array_equal(dst.W.array, numpy.full((2, 3), 4.0))


def test_deepcopy_and_pickle_round_trip():
    model = MyChain()
    model.l1.W.array[...] = 3.0
    for clone in (copy.deepcopy(model), pickle.loads(pickle.dumps(model))):
        numpy.testing.assert_array_equal(clone.l1.W.array, model.l1.W.array)
        assert [name for name, _ in clone.namedparams()] == [name for name, _ in model.namedparams()]
        assert clone.l1.W.array is not model.l1.W.array


# -- repeat ----------------------------------------------------------------------------------------------


def test_repeat_init_gives_independent_reinitialized_copies():
    link = chainer.Link()
    with link.init_scope():
        link.W = chainer.Parameter(Counter(), (2,))
    seq = link.repeat(3)
    assert isinstance(seq, chainer.Sequential) and len(seq) == 3
    values = [tuple(layer.W.array) for layer in seq]
    # each copy deep-copies the initializer state (next=3), so each draws 3, 4
    assert values == [(3.0, 4.0)] * 3
    assert all(layer is not link for layer in seq)
    assert len({id(layer.W.array) for layer in seq}) == 3


def test_repeat_modes():
    link = Linear(2, 2)
    shared = link.repeat(2, mode="share")
    assert all(layer.W.array is link.W.array for layer in shared)
    copied = link.repeat(2, mode="copy")
    assert all(layer.W.array is not link.W.array for layer in copied)
    assert len(link.repeat(0)) == 0
    with pytest.raises(ValueError, match="mode"):
        link.repeat(2, mode="bad")
    with pytest.raises(TypeError, match="n_repeat"):
        link.repeat(2.0)


# -- calling ----------------------------------------------------------------------------------------


def test_call_without_forward():
    # An AttributeError, as in Chainer 7 (the link has no forward and no __call__).
    with pytest.raises(AttributeError, match="defines no forward"):
        chainer.Link()(1)


def test_call_falls_back_to_a_mixin_call():
    class Doubler:
        def __call__(self, x):
            return 2 * x

    class Mixed(chainer.Link, Doubler):
        pass

    assert Mixed()(21) == 42


def test_missing_init_call_is_reported():
    class NoInit(chainer.Link):
        def __init__(self):
            pass

        def forward(self, x):
            return x

    class NoInitScope(chainer.Link):
        def __init__(self):
            with self.init_scope():
                pass

    with pytest.raises(RuntimeError, match=r"^Link\.__init__\(\) has not been called\.$"):
        NoInit()(1)
    with pytest.raises(RuntimeError, match=r"^Link\.__init__\(\) has not been called\.$"):
        NoInitScope()


def test_call_passes_args_and_kwargs():
    class Adder(chainer.Link):
        def forward(self, x, y=0, *, z=0):
            return x + y + z

    assert Adder()(1, 2, z=3) == 6


# -- printing ----------------------------------------------------------------------------------------


def test_repr_tree():
    class Spec(chainer.Link):
        @property
        def printable_specs(self):
            yield "size", 3
            yield "act", "relu"

    chain = chainer.Chain()
    with chain.init_scope():
        chain.b = Spec()
        chain.a = MyChain2()
    expected = (
        "Chain(\n  (a): MyChain2(\n    (0): Linear(),\n    (1): Linear(),\n  ),\n  (b): Spec(size=3, act=relu),\n)"
    )
    assert repr(chain) == expected
    assert str(chain) == expected
    assert repr(chainer.Chain()) == "Chain()"


# -- serialize protocol -------------------------------------------------------------------------------


class _Recorder:
    """A minimal serializer: records full keys and values."""

    def __init__(self, store, prefix=""):
        self.store = store
        self.prefix = prefix

    def __getitem__(self, key):
        return _Recorder(self.store, self.prefix + key + "/")

    def __call__(self, key, value):
        self.store[self.prefix + key] = value
        return value


def test_serialize_keys():
    model = Classifier(MyChain())
    model.predictor.l1.add_persistent("N", 3)
    store = {}
    model.serialize(_Recorder(store))
    assert sorted(store) == [
        "predictor/l1/N",
        "predictor/l1/W",
        "predictor/l1/b",
        "predictor/l2/W",
        "predictor/l2/b",
    ]
    assert store["predictor/l1/W"] is model.predictor.l1.W.array
    store = {}
    MyChain2().serialize(_Recorder(store))
    assert sorted(store) == ["0/W", "0/b", "1/W", "1/b"]


def test_parameter_with_an_array_and_a_shape_fills_the_shape():
    # As in Chainer 7: with a shape, the array is a value broadcast over it.
    p = chainer.Parameter(numpy.arange(3, dtype=numpy.float32), (2, 3))
    numpy.testing.assert_array_equal(p.array, [[0, 1, 2], [0, 1, 2]])
    p = chainer.Parameter(numpy.arange(3, dtype=numpy.float32))
    assert p.shape == (3,)


# -- gradients of parameters (Chainer 7's NaN-until-cleared rule) -----------------------


def test_parameter_gradient_starts_nan_and_accumulates_nan_until_cleared():
    link = Linear(2, 3)
    # A parameter created with a shape has a NaN gradient of its shape and dtype.
    assert link.W.grad.shape == (3, 2) and link.W.grad.dtype == numpy.float32
    assert numpy.isnan(link.W.grad).all()
    x = numpy.array([[1.0, 2.0]], numpy.float32)
    F.sum(link(x)).backward()
    # Backprop adds to the NaN: forgetting cleargrads shows, instead of silently summing.
    assert numpy.isnan(link.W.grad).all()
    link.cleargrads()
    F.sum(link(x)).backward()
    # d(sum(x W^T + b))/dW = x for every output row.
    numpy.testing.assert_array_equal(link.W.grad, numpy.repeat(x, 3, axis=0))


def test_uninitialized_parameter_gradient_is_unreadable_until_set_or_cleared():
    p = chainer.Parameter()
    with pytest.raises(RuntimeError, match="Cannot retrieve Parameter.grad"):
        _ = p.grad
    p.initialize((2,))
    assert numpy.isnan(p.grad).all() and p.grad.shape == (2,)

    cleared = chainer.Parameter()
    cleared.cleargrad()
    assert cleared.grad is None
    cleared.initialize((2,))
    assert cleared.grad is None

    zeroed = chainer.Parameter()
    with pytest.warns(DeprecationWarning, match="zerograd is deprecated"):
        zeroed.zerograd()
    zeroed.initialize((3,))
    numpy.testing.assert_array_equal(zeroed.grad, numpy.zeros(3, numpy.float32))


def test_parameter_from_an_array_has_no_gradient():
    p = chainer.Parameter(numpy.ones(2, numpy.float32))
    assert p.grad is None


def test_link_keyword_parameters_with_none_shape():
    link = chainer.Link(x=((2, numpy.int64(3)), "d"), u=(None, "d"))
    assert link.x.shape == (2, 3) and link.x.dtype == numpy.float64
    assert link.u.array is None
    link.u.initialize((4,))
    assert link.u.dtype == numpy.float64


# -- copies ----------------------------------------------------------------------------------


def test_share_copy_sees_arrays_created_later_and_has_no_gradient():
    original = Linear(3)  # W is created at the first call
    shared = original.copy(mode="share")
    assert shared.W is not original.W and shared.name is None
    assert shared.W.grad is None
    original(numpy.ones((1, 5), numpy.float32))
    # The copy sees the array the original created (Chainer 7's shared array slot).
    assert shared.W.array is original.W.array
    shared.W.array = numpy.zeros((3, 5), numpy.float32)
    assert original.W.array is shared.W.array


def test_share_copy_stops_sharing_once_moved():
    original = Linear(3)
    shared = original.copy(mode="share")
    shared.to_device("@numpy")
    original(numpy.ones((1, 5), numpy.float32))
    assert shared.W.array is None


def test_deep_copies_keep_the_name_and_init_copies_get_new_values_and_nan_gradients():
    chain = MyChain()
    child = chain.l1
    copied = child.copy(mode="copy")
    assert copied.name == "l1"
    assert copied.W.array is not child.W.array
    numpy.testing.assert_array_equal(copied.W.array, child.W.array)
    counted = chainer.Link()
    with counted.init_scope():
        counted.p = chainer.Parameter(Counter(), (3,))
    counted.cleargrads()
    fresh = counted.copy(mode="init")
    assert not numpy.array_equal(fresh.p.array, counted.p.array)
    assert numpy.isnan(fresh.p.grad).all()
    assert counted.p.grad is None


# -- devices -----------------------------------------------------------------------------------


def test_legacy_device_methods_are_deprecated():
    link = Linear(2, 3)
    with pytest.warns(DeprecationWarning, match=r"to_cpu is deprecated\. Please use to_device\('@numpy'\)"):
        assert link.to_cpu() is link
    with pytest.warns(DeprecationWarning, match=r"Linear._device_id is left only for backward compatibility"):
        assert link._device_id is None  # deprecated, as in Chainer 7


def test_overriding_device_methods():
    with pytest.warns(DeprecationWarning, match="overrides DeviceResident.to_cpu"):

        class OldStyle(chainer.Link):
            def to_cpu(self):
                return super().to_cpu()

    with pytest.raises(TypeError, match="cannot be overridden"):

        class Sealed(chainer.Link):
            def to_device(self, device):
                return self


# -- ChainList slices ------------------------------------------------------------------------


def test_chainlist_slice_assignment_renames_children():
    links = [chainer.Link() for _ in range(6)]
    chain_list = chainer.ChainList(*links[:3])
    chain_list[3:0:-1] = [links[3], links[4]]
    assert list(chain_list) == [links[0], links[4], links[3]]
    assert [link.name for link in chain_list] == ["0", "1", "2"]
    chain_list[1:3] = [links[5]]
    assert list(chain_list) == [links[0], links[5]]
    assert links[5].name == "1"
    with pytest.raises(TypeError, match="expected a Link"):
        chain_list[0:1] = [1]
