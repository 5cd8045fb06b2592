import pytest

onnx = pytest.importorskip("onnx")

from onnx_chainer import onnx_helper  # noqa: E402


def test_cleanse_param_name():
    assert onnx_helper.cleanse_param_name("/l1/W") == "param_l1_W"
    assert onnx_helper.cleanse_param_name("/enc/conv/b") == "param_enc_conv_b"
    with pytest.raises(TypeError, match="cleanse_param_name"):
        onnx_helper.cleanse_param_name(3)


def test_func_name_and_make_node():
    onnx_helper.set_func_name("MyFunc_3")
    assert onnx_helper.get_func_name() == "MyFunc_3"
    a = onnx_helper.make_node("Relu", ["x"], ["y"])
    b = onnx_helper.make_node("Relu", ["y"], ["z"])
    assert a.op_type == "Relu" and list(a.input) == ["x"] and list(a.output) == ["y"]
    assert a.name.startswith("MyFunc_3") and b.name.startswith("MyFunc_3") and a.name != b.name
    assert onnx_helper.make_node("Relu", ["x"], ["y"], name="given").name == "given"
    with pytest.raises(TypeError, match="set_func_name"):
        onnx_helper.set_func_name(None)


def test_graph_builder_chains_nodes():
    onnx_helper.set_func_name("F_0")
    gb = onnx_helper.GraphBuilder()
    h = gb.op("Mul", ["x", "x"])
    a, b = gb.op("Split", [h], num_outputs=2, axis=0)
    gb.op_output_named("Add", [a, b], ["named"])
    gb.op("Sqrt", ["named"])
    nodes = gb.nodes(["out"])
    assert [n.op_type for n in nodes] == ["Mul", "Split", "Add", "Sqrt"]
    assert list(nodes[0].output) == [h] and h.startswith("F_0_tmp_")
    assert list(nodes[1].output) == [a, b]
    assert list(nodes[-1].output) == ["out"]
    assert len({n.name for n in nodes}) == 4
    with pytest.raises(ValueError, match="2 name"):
        gb.nodes(["p", "q"])


def test_graph_builders_of_one_function_never_share_names():
    onnx_helper.set_func_name("G_0")
    first, second = onnx_helper.GraphBuilder(), onnx_helper.GraphBuilder()
    names = [first.op("Relu", ["x"]), second.op("Relu", ["x"]), first.op("Relu", ["x"])]
    assert len(set(names)) == 3 and all(n.startswith("G_0_tmp_") for n in names)


def test_custom_domains_pass_the_installed_checker():
    # onnx >= 1.16 (this package's floor) skips schema checks of unknown domains.
    assert onnx_helper.is_support_non_standard_domain() is True
