import numpy
import pytest

from chainer import datasets

DATA = [f"e{i}" for i in range(10)]


def test_sub_dataset_range_and_order():
    sub = datasets.SubDataset(DATA, 2, 6)
    assert len(sub) == 4 and sub[:] == DATA[2:6]
    assert sub[-1] == "e5" and sub[[3, 0]] == ["e5", "e2"]
    with pytest.raises(IndexError, match="index 4 is out of range"):
        sub[4]
    order = list(range(10))[::-1]
    sub = datasets.SubDataset(DATA, 1, 4, order)
    assert sub[:] == ["e8", "e7", "e6"]


def test_sub_dataset_errors():
    with pytest.raises(ValueError, match=r"the subset \[3, 11\) overruns the base dataset of length 10"):
        datasets.SubDataset(DATA, 3, 11)
    with pytest.raises(ValueError, match="overruns"):
        datasets.SubDataset(DATA, 5, 4)
    with pytest.raises(ValueError, match="order must have the length of the base dataset"):
        datasets.SubDataset(DATA, 0, 2, order=[0, 1])
    with pytest.raises(TypeError, match="start must be an int"):
        datasets.SubDataset(DATA, 0.5, 2)


def test_split_dataset():
    first, second = datasets.split_dataset(DATA, 3)
    assert first[:] == DATA[:3] and second[:] == DATA[3:]
    first, second = datasets.split_dataset(DATA, 0)
    assert len(first) == 0 and len(second) == 10
    order = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0]
    first, _ = datasets.split_dataset(DATA, 2, order)
    assert first[:] == ["e9", "e8"]
    with pytest.raises(ValueError, match=r"split_at must be in \[0, 10\]"):
        datasets.split_dataset(DATA, 11)
    with pytest.raises(TypeError, match="split_at must be an int"):
        datasets.split_dataset(DATA, 2.0)


def test_split_dataset_random_is_seeded_permutation():
    first, second = datasets.split_dataset_random(DATA, 4, seed=7)
    perm = numpy.random.RandomState(7).permutation(10)
    assert first[:] == [DATA[i] for i in perm[:4]]
    assert second[:] == [DATA[i] for i in perm[4:]]
    again, _ = datasets.split_dataset_random(DATA, 4, seed=7)
    assert again[:] == first[:]
    a, b = datasets.split_dataset_random(DATA, 4)
    assert sorted(a[:] + b[:]) == sorted(DATA)


def test_split_dataset_n():
    parts = datasets.split_dataset_n(DATA, 3)
    assert [p[:] for p in parts] == [DATA[0:3], DATA[3:6], DATA[6:9]]
    parts = datasets.split_dataset_n_random(DATA, 2, seed=1)
    perm = numpy.random.RandomState(1).permutation(10)
    assert [p[:] for p in parts] == [[DATA[i] for i in perm[:5]], [DATA[i] for i in perm[5:]]]
    with pytest.raises(ValueError, match="n must be positive"):
        datasets.split_dataset_n(DATA, 0)


@pytest.mark.parametrize("n, n_folds", [(10, 3), (10, 2), (7, 7), (11, 4)])
def test_cross_validation_folds_partition_the_data(n, n_folds):
    data = list(range(n))
    splits = datasets.get_cross_validation_datasets(data, n_folds)
    assert len(splits) == n_folds
    tests = [sorted(test[:]) for _, test in splits]
    assert sorted(sum(tests, [])) == data
    sizes = [len(t) for t in tests]
    assert max(sizes) - min(sizes) <= 1
    for train, test in splits:
        assert sorted(train[:] + test[:]) == data
        assert not set(train[:]) & set(test[:])


def test_cross_validation_random_is_seeded():
    splits = datasets.get_cross_validation_datasets_random(DATA, 2, seed=3)
    perm = numpy.random.RandomState(3).permutation(10)
    tests = [set(test[:]) for _, test in splits]
    assert {DATA[i] for i in perm[5:]} in tests and {DATA[i] for i in perm[:5]} in tests
    again = datasets.get_cross_validation_datasets_random(DATA, 2, seed=3)
    assert [t[:] for _, t in again] == [t[:] for _, t in splits]


def test_cross_validation_errors_and_old_keyword():
    with pytest.raises(ValueError, match=r"n_folds must be in \[2, 10\]"):
        datasets.get_cross_validation_datasets(DATA, 1)
    with pytest.raises(TypeError, match="n_folds is required"):
        datasets.get_cross_validation_datasets(DATA)
    with pytest.raises(TypeError, match="unexpected keyword"):
        datasets.get_cross_validation_datasets(DATA, 2, nfold=3)
    with pytest.warns(DeprecationWarning, match="'n_fold' is deprecated"):
        splits = datasets.get_cross_validation_datasets(DATA, n_fold=5)
    assert len(splits) == 5
