"""What the pre-trained ImageNet models share: image preparation, oversampling, the
layer-by-layer forward, ``extract``/``predict`` and finding pre-trained weights."""

from __future__ import annotations

import collections
import importlib.util
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy

import chainer
from chainer import link, serializers, variable
from chainer.utils import argument

# Whether Pillow, which image preparation needs, is installed (found without importing it).
pillow_available = importlib.util.find_spec("PIL") is not None

# Where Chainer keeps (and Chainer 7 kept) converted weights, under the dataset root.
MODELS_DIRECTORY = "pfnet/chainer/models"


def prepare_image(where: str, image: Any, size: Any, mean_bgr: Sequence[float]) -> numpy.ndarray:
    """An RGB image (PIL image or array) as a ``(3, H, W)`` BGR array minus ``mean_bgr``."""
    try:
        from PIL import Image
    except ImportError:  # pragma: no cover - Pillow is a declared extra
        raise ImportError(
            f"{where}: image preparation needs Pillow; install it with `pip install chainer-links[vision]`"
        ) from None
    dtype = chainer.get_dtype()
    if isinstance(image, numpy.ndarray):
        if image.ndim == 3:
            if image.shape[0] == 1:
                image = image[0]
            elif image.shape[0] == 3:
                image = image.transpose((1, 2, 0))
        if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 3, 4)):
            raise ValueError(
                f"{where}: an array image must have shape (H, W), (H, W, C) or (C, H, W) with C in (1, 3), "
                f"got {image.shape}"
            )
        if image.ndim == 3 and image.shape[2] == 1:
            image = image[:, :, 0]
        image = Image.fromarray(image.astype(numpy.uint8))
    elif not isinstance(image, Image.Image):
        raise TypeError(f"{where}: image must be a PIL image or a numpy.ndarray, got {type(image).__name__}")
    image = image.convert("RGB")
    if size:
        # PIL sizes are (width, height), as Chainer passed them.
        image = image.resize(tuple(int(s) for s in size), Image.BICUBIC)
    array = numpy.asarray(image, dtype=numpy.float32)[:, :, ::-1] - numpy.asarray(mean_bgr, numpy.float32)
    return numpy.ascontiguousarray(array.transpose((2, 0, 1)), dtype=dtype)


def oversample(images: numpy.ndarray, crop_dims: tuple[int, int]) -> numpy.ndarray:
    """Ten crops per image: the four corners and the centre, then the same mirrored.

    Args:
        images: Array of shape ``(N, C, H, W)``.
        crop_dims: ``(height, width)`` of the crops.

    Returns:
        Array of shape ``(10 N, C, height, width)``; crops ``10 i .. 10 i + 9`` come from image ``i``.
    """
    n, c, h, w = images.shape
    ch, cw = crop_dims
    corners = [(0, 0), (0, w - cw), (h - ch, 0), (h - ch, w - cw), ((h - ch) // 2, (w - cw) // 2)]
    crops = numpy.stack([images[:, :, y : y + ch, x : x + cw] for y, x in corners], axis=1)
    crops = numpy.concatenate([crops, crops[:, :, :, :, ::-1]], axis=1)
    return crops.reshape(n * 10, c, ch, cw)


def _dataset_root() -> str:
    """Chainer's dataset root: chainer-datasets' setting when it is installed, otherwise
    the same default it uses ($CHAINER_DATASET_ROOT, else ~/.chainer/dataset), so that the
    model zoo works with chainer-core and chainer-links alone."""
    try:
        from chainer.dataset import download
    except ImportError:
        env = os.environ.get("CHAINER_DATASET_ROOT")
        return os.path.expanduser(env) if env else os.path.join(os.path.expanduser("~"), ".chainer", "dataset")
    return download.get_dataset_root()


def pretrained_npz(where: str, pretrained_model: Any, npz_name: str, source: str) -> str | None:
    """The npz file to load for ``pretrained_model``, or ``None`` for random weights.

    ``'auto'`` means the converted file ``npz_name`` Chainer keeps under
    ``<dataset root>/pfnet/chainer/models``; a ``.caffemodel`` path means that same converted
    file (Chainer 7 converted the Caffe model into it on first use); any other path is an npz
    file. Missing files raise a ``FileNotFoundError`` explaining how to get the weights.
    """
    if not pretrained_model:
        return None
    if not isinstance(pretrained_model, (str, os.PathLike)):
        raise TypeError(
            f"{where}: pretrained_model must be 'auto', a path or None, got {type(pretrained_model).__name__}"
        )
    path = os.fspath(pretrained_model)
    if path != "auto" and not path.endswith(".caffemodel"):
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{where}: the pre-trained model file {path!r} does not exist")
        return path
    cached = os.path.join(_dataset_root(), MODELS_DIRECTORY, npz_name)
    if os.path.isfile(cached):
        return cached
    raise FileNotFoundError(
        f"{where}: the pre-trained weights {npz_name!r} were not found at {cached}. Chainer 7 made this "
        f"file by converting the original Caffe model ({source}); converting Caffe models is not provided "
        "for the model zoo here (chainer.links.caffe.CaffeFunction reads and runs a .caffemodel itself). "
        "To use pre-trained weights, copy the "
        f"{npz_name} that Chainer <= 7.8.1 wrote under $CHAINER_DATASET_ROOT/{MODELS_DIRECTORY} on another "
        "machine to that path, or pass the path of an npz file saved from this model with "
        "chainer.serializers.save_npz as pretrained_model. Use pretrained_model=None for randomly "
        "initialised weights."
    )


class PretrainedImageModel(link.Chain):
    """Base of the ImageNet models: ``functions`` maps each layer name to the callables
    that produce it from the previous layer's output, in order."""

    _default_extract_layers: Sequence[str] = ("prob",)
    _mean_bgr: Sequence[float] = (0.0, 0.0, 0.0)
    # Side branches: layer name -> the layer whose output it starts from (instead of the previous one).
    _branches: dict[str, str] = {}

    @property
    def functions(self) -> collections.OrderedDict[str, list[Callable[[Any], Any]]]:
        raise NotImplementedError(f"{type(self).__name__} does not define functions")

    @property
    def available_layers(self) -> list[str]:
        """The names of the layers whose outputs :meth:`forward` can return."""
        return list(self.functions.keys())

    def _check_layers(self, layers: Iterable[str]) -> list[str]:
        if isinstance(layers, str):
            raise TypeError(f"{type(self).__name__}: layers must be a list of layer names, got the string {layers!r}")
        layers = list(layers)
        available = self.available_layers
        unknown = [name for name in layers if name not in available]
        if unknown:
            raise ValueError(f"{type(self).__name__}: unknown layer(s) {unknown}; the available layers are {available}")
        return layers

    def forward(self, x: Any, layers: Iterable[str] | None = None, **kwargs: Any) -> dict[str, variable.Variable]:
        """Compute the outputs of the given layers.

        Args:
            x: Input images, shape ``(N, 3, H, W)`` (BGR, mean subtracted: see :meth:`prepare`).
            layers: Names of the layers to return (default ``['prob']``); see
                :attr:`available_layers`. Computation stops after the last one needed.

        Returns:
            A dict from layer name to output variable.
        """
        if kwargs:
            argument.check_unexpected_kwargs(
                kwargs, test="test argument is not supported anymore. Use chainer.using_config"
            )
            argument.assert_kwargs_empty(kwargs)
        targets = set(self._check_layers(["prob"] if layers is None else layers))
        branches = self._branches
        sources = set(branches.values())
        cache: dict[str, Any] = {}
        activations: dict[str, variable.Variable] = {}
        h = x
        for key, funcs in self.functions.items():
            if not targets:
                break
            if key in branches:
                h = cache[branches[key]]
            for func in funcs:
                h = func(h)
            if key in sources:
                cache[key] = h
            if key in targets:
                activations[key] = h
                targets.discard(key)
        return activations

    def _prepare(self, image: Any, size: Any) -> numpy.ndarray:
        return prepare_image(f"{type(self).__name__}.extract", image, size, self._mean_bgr)

    def _stack(self, images: Iterable[Any], size: Any) -> numpy.ndarray:
        images = list(images)
        if not images:
            raise ValueError(f"{type(self).__name__}: images must be a non-empty list of images")
        return numpy.stack([self._prepare(image, size) for image in images])

    def extract(
        self, images: Iterable[Any], layers: Iterable[str] | None = None, size: Any = (224, 224), **kwargs: Any
    ) -> dict[str, variable.Variable]:
        """Feature vectors of images.

        The images are resized to ``size``, converted to BGR and mean-subtracted (see the
        module's ``prepare``), then run through :meth:`forward`. Call it under
        ``chainer.using_config('train', False)`` for deterministic features.

        Args:
            images: PIL images or arrays (``(H, W)``, ``(H, W, 3)`` or ``(3, H, W)``, RGB).
            layers: Names of the layers to return (default: this model's feature layer).
            size: Size the images are resized to; ``None`` keeps them as they are.

        Returns:
            A dict from layer name to output variable.
        """
        if kwargs:
            argument.check_unexpected_kwargs(
                kwargs,
                test="test argument is not supported anymore. Use chainer.using_config",
                volatile="volatile argument is not supported anymore. Use chainer.using_config",
            )
            argument.assert_kwargs_empty(kwargs)
        layers = list(self._default_extract_layers) if layers is None else self._check_layers(layers)
        x = self.device.send(self._stack(images, size))
        return self(variable.Variable(x), layers=layers)

    def predict(self, images: Iterable[Any], oversample: bool = True) -> variable.Variable:
        """Class probabilities of images (1000 ImageNet classes).

        The images are resized to 256x256; with ``oversample`` the probabilities of ten
        224x224 crops (corners, centre and their mirrors) are averaged, otherwise the
        centre crop is used. Runs in test mode without building a graph.

        Args:
            images: PIL images or arrays (RGB).
            oversample: Average over ten crops instead of using the centre crop.

        Returns:
            A variable of shape ``(N, 1000)``.
        """
        x = self._stack(images, (256, 256))
        if oversample:
            x = _oversample(x, (224, 224))
        else:
            x = numpy.ascontiguousarray(x[:, :, 16:240, 16:240])
        with chainer.no_backprop_mode(), chainer.using_config("train", False):
            y = self(variable.Variable(self.device.send(x)), layers=["prob"])["prob"]
            if oversample:
                n = y.shape[0] // 10
                y = chainer.functions.mean(chainer.functions.reshape(y, (n, 10) + y.shape[1:]), axis=1)
        return y


_oversample = oversample


def load_pretrained(model: link.Link, path: str | None) -> None:
    if path is not None:
        serializers.load_npz(path, model)
