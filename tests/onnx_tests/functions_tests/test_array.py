import numpy
import pytest

pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")

import chainer.functions as F
from onnx_chainer.testing import input_generator as gen

X = gen.increasing(2, 3, 4)
IMG = gen.increasing(1, 8, 2, 3)

CASES = {
    "reshape": (lambda x: F.reshape(x, (4, -1)), X),
    "flatten": (F.flatten, X),
    "transpose": (lambda x: F.transpose(x, (1, 2, 0)), X),
    "transpose_default": (F.transpose, X),
    "swapaxes": (lambda x: F.swapaxes(x, 0, 2), X),
    "moveaxis": (lambda x: F.moveaxis(x, 0, -1), X),
    "rollaxis": (lambda x: F.rollaxis(x, 2), X),
    "concat": (lambda x: F.concat((x, x * 2), axis=-1), X),
    "stack": (lambda x: F.stack((x, x * 2), axis=1), X),
    "hstack": (lambda x: F.hstack((x, x * 2)), X),
    "vstack_1d": (lambda x: F.vstack((x[0, 0], x[1, 1])), X),
    "dstack_2d": (lambda x: F.dstack((x[0], x[1])), X),
    "squeeze": (lambda x: F.squeeze(x[:, :1]), X),
    "squeeze_axis": (lambda x: F.squeeze(x[:1, :1], axis=1), X),
    "expand_dims": (lambda x: F.expand_dims(x, -1), X),
    "broadcast_to": (lambda x: F.broadcast_to(x[:, :1], (2, 3, 4)), X),
    "cast": (lambda x: F.cast(x, numpy.float64), X),
    "copy": (lambda x: F.copy(x, -1), X),
    "split_axis": (lambda x: F.split_axis(x, [1, 3], axis=2), X),
    "split_axis_sections": (lambda x: F.split_axis(x, 3, axis=1), X),
    "separate": (lambda x: F.separate(x, axis=1), X),
    "tile": (lambda x: F.tile(x, (2, 1, 2)), X),
    "tile_more_axes": (lambda x: F.tile(x, (2, 1, 1, 2)), X),
    "repeat": (lambda x: F.repeat(x, 2, axis=1), X),
    "repeat_list": (lambda x: F.repeat(x, [1, 0, 3], axis=1), X),
    "repeat_flat": (lambda x: F.repeat(x, 2), X),
    "pad_constant": (lambda x: F.pad(x, ((0, 0), (1, 2), (2, 1)), "constant", constant_values=0.5), X),
    "pad_reflect": (lambda x: F.pad(x, ((0, 0), (1, 1), (2, 0)), "reflect"), X),
    "pad_edge": (lambda x: F.pad(x, 1, "edge"), X),
    "getitem_int": (lambda x: x[1], X),
    "getitem_slices": (lambda x: x[:, 1:3, ::2], X),
    "getitem_negative_step": (lambda x: x[::-1, :, 3:0:-2], X),
    "getitem_ellipsis_none": (lambda x: x[..., None, -1], X),
    "getitem_index_array": (lambda x: x[:, [2, 0, 2]], X),
    "getitem_index_array_2d": (lambda x: x[:, :, numpy.array([[0, 1], [3, 3]])], X),
    "depth2space": (lambda x: F.depth2space(x, 2), IMG),
    "space2depth": (lambda x: F.space2depth(F.depth2space(x, 2), 2), IMG),
    "flip": (lambda x: F.flip(x, 2), X),
    "fliplr": (F.fliplr, X),
    "flipud": (F.flipud, X),
    "permutate": (lambda x: F.permutate(x, numpy.array([2, 0, 1], numpy.int32), axis=1), X),
    "permutate_inv": (lambda x: F.permutate(x, numpy.array([2, 0, 1], numpy.int32), axis=1, inv=True), X),
    "resize_bilinear": (lambda x: F.resize_images(x, (5, 4)), IMG),
    "resize_bilinear_no_align": (lambda x: F.resize_images(x, (5, 7), align_corners=False), IMG),
    "resize_nearest": (lambda x: F.resize_images(x, (5, 7), mode="nearest"), IMG),
}
CASES.update(
    {
        "transpose_sequence": (lambda x: F.transpose_sequence([x[0, :3], x[1, :2], x[0, :1]])[1], X),
        "getitem_list_of_ints": (lambda x: x[[1, 0, 1]], X),
        "getitem_two_arrays": (lambda x: x[[0, 1], [2, 0]], X),
        "getitem_three_arrays": (lambda x: x[[0, 1], [0, 1], [2, 3]], X),
        "getitem_int_then_arrays": (lambda x: x[0, [0, 1], [2, 3]], X),
        "getitem_arrays_then_newaxis": (lambda x: x[[0, 1], [0, 2], None], X),
        "getitem_int_next_to_array": (lambda x: x[:, 0, [[0, 1], [2, 3]]], X),
    }
)
NEEDS = {
    "getitem_slices": 10,
    "getitem_negative_step": 10,
    "flip": 10,
    "fliplr": 10,
    "flipud": 10,
    "broadcast_to": 8,
    "getitem_two_arrays": 11,
    "getitem_three_arrays": 11,
    "getitem_int_then_arrays": 11,
    "getitem_arrays_then_newaxis": 11,
}
# Bilinear resizing before opset 11 has no mode that gives Chainer's values: exported
# with a warning.
APPROXIMATE_BEFORE_11 = {"resize_bilinear", "resize_bilinear_no_align"}


@pytest.mark.parametrize("opset", [7, 9, 11, 13, 26])
@pytest.mark.parametrize("case", sorted(CASES))
def test_array(case, opset, check_export, wrap):
    import onnx_chainer

    fn, x = CASES[case]
    model = wrap(lambda m, x: fn(x))
    if opset < NEEDS.get(case, 0):
        with pytest.raises(ValueError, match=f"needs opset_version >= {NEEDS[case]}"):
            onnx_chainer.export(model, x, opset_version=opset)
        return
    if case in APPROXIMATE_BEFORE_11 and opset < 11:
        if case == "resize_bilinear_no_align":
            # 3 -> 7 columns: floor(3 * float32(7 / 3)) is 6.
            with pytest.raises(ValueError, match="no float32 scale gives it"):
                onnx_chainer.export(model, x, opset_version=opset)
            return
        with pytest.warns(UserWarning, match="values differ from Chainer's"):
            onnx_model = onnx_chainer.export(model, x, opset_version=opset)
        assert any(n.op_type in ("Upsample", "Resize") for n in onnx_model.graph.node)
        return
    check_export(model, x, opset_version=opset, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "slices",
    [
        [[0, 1], 0, [0, 1]],  # index arrays apart
        [slice(None), [0, 1], [0, 1]],  # index arrays after a slice
        [None, [0, 1], [0, 1]],  # index arrays after a new axis
        (0, slice(None), [0, 1]),  # an int and an array apart
    ],
)
def test_get_item_index_arrays_that_are_not_exported(slices, wrap):
    import onnx_chainer

    with pytest.raises(ValueError, match="GetItem .* is not implemented") as info:
        onnx_chainer.export(wrap(lambda m, x: x[slices]), X)
    assert isinstance(info.value, NotImplementedError)


@pytest.mark.parametrize("opset", [9, 11, 26])
@pytest.mark.parametrize("inv", [False, True])
def test_permutate_with_indices_from_the_graph(inv, opset, check_export, wrap):
    # The indices are a graph input: the inverse permutation is computed in the graph.
    indices = numpy.array([2, 0, 1], numpy.int32)
    model = wrap(lambda m, x, i: F.permutate(x, i, axis=1, inv=inv))
    check_export(model, (X, indices), opset_version=opset)


@pytest.mark.parametrize("opset", [7, 9, 26])
def test_select_item(opset, check_export, wrap):
    t = numpy.array([3, 0, 2], numpy.int32)
    x = gen.increasing(3, 4)
    onnx_model = check_export(wrap(lambda m, x, t: F.select_item(x, t)), (x, t), opset_version=opset)
    assert len(onnx_model.graph.initializer) == 0


@pytest.mark.parametrize("opset", [7, 26])
def test_shape_and_dynamic_reshape_of_wrapped_functions(opset, check_export, wrap):
    from onnx_chainer.replace_func import as_funcnode

    @as_funcnode("Shape")
    def shape(x):
        return numpy.array(x.shape, numpy.int64)

    @as_funcnode("Reshape")
    def reshape(x, shape):
        return F.reshape(x, tuple(shape.array))

    check_export(wrap(lambda m, x: shape(x)), X, opset_version=opset)
    check_export(wrap(lambda m, x, s: reshape(x, s)), (X, numpy.array([4, 6], numpy.int64)), opset_version=opset)


@pytest.mark.parametrize("opset", [9, 26])
def test_where_with_a_condition_input(opset, check_export, wrap):
    cond = numpy.array([[True, False, True], [False, False, True]])
    y = numpy.zeros((2, 3), numpy.float32)
    check_export(wrap(lambda m, c, x, y: F.where(c, x, y)), (cond, gen.increasing(2, 3), y), opset_version=opset)
