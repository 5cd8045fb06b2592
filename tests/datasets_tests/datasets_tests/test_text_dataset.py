import pickle

import pytest

from chainer import datasets


@pytest.fixture
def files(tmp_path):
    a = tmp_path / "a.txt"
    b = tmp_path / "b.txt"
    a.write_text("first\nsecond line\n\nfourth\n", encoding="utf-8")
    b.write_text("un\ndeux\ntrois\nquatre\n", encoding="utf-8")
    return str(a), str(b)


def test_single_file_lines_keep_newlines(files):
    ds = datasets.TextDataset(files[0])
    assert len(ds) == 4
    assert ds[1] == "second line\n"
    assert ds[2] == "\n"
    assert ds[-1] == "fourth\n"
    assert ds[::3] == ["first\n", "fourth\n"]
    ds.close()


def test_several_files_give_tuples(files):
    ds = datasets.TextDataset(list(files))
    assert ds[3] == ("fourth\n", "quatre\n")
    ds.close()


def test_filter_func_gets_one_line_per_file(files):
    ds = datasets.TextDataset(list(files), filter_func=lambda x, y: x.strip() != "" and "e" in y)
    assert ds[:] == [("second line\n", "deux\n"), ("fourth\n", "quatre\n")]
    ds.close()


def test_encoding_and_errors_per_file(tmp_path):
    latin = tmp_path / "latin.txt"
    latin.write_bytes("café\n".encode("latin-1"))
    utf = tmp_path / "utf.txt"
    utf.write_text("naïve\n", encoding="utf-8")
    ds = datasets.TextDataset([str(latin), str(utf)], encoding=["latin-1", "utf-8"])
    assert ds[0] == ("café\n", "naïve\n")
    ds.close()
    ds = datasets.TextDataset(str(latin), encoding="utf-8", errors="replace")
    assert ds[0] == "caf\ufffd\n"
    ds.close()


def test_random_access_is_repeatable(files):
    ds = datasets.TextDataset(files[1])
    assert [ds[i] for i in (3, 0, 3, 1)] == ["quatre\n", "un\n", "quatre\n", "deux\n"]
    ds.close()


def test_pickle_reopens_files(files):
    ds = datasets.TextDataset(files[0])
    clone = pickle.loads(pickle.dumps(ds))
    assert clone[1] == "second line\n" and len(clone) == 4
    clone.close()
    ds.close()


def test_errors(files, tmp_path):
    short = tmp_path / "short.txt"
    short.write_text("one\n")
    with pytest.raises(ValueError, match="different numbers of lines"):
        datasets.TextDataset([files[0], str(short)])
    with pytest.raises(ValueError, match="encoding has 1 entries for 2 files"):
        datasets.TextDataset(list(files), encoding=["utf-8"])
    with pytest.raises(ValueError, match="no paths are given"):
        datasets.TextDataset([])
    ds = datasets.TextDataset(files[0])
    with pytest.raises(IndexError, match="index 4 is out of range"):
        ds[4]
    ds.close()


def test_a_list_of_one_path_gives_lines(files):
    # As in Chainer 7: tuples only with several files.
    ds = datasets.TextDataset([files[0]], encoding=["utf-8"])
    assert ds[0] == "first\n"
    ds.close()


def test_closed_dataset_refuses_to_read(files):
    ds = datasets.TextDataset(list(files))
    assert ds[0] == ("first\n", "un\n")
    ds.close()
    with pytest.raises(ValueError, match="the dataset is closed"):
        ds[0]


def test_close_closes_every_file_and_reports_the_first_failure(files):
    ds = datasets.TextDataset([files[0], files[1], files[0]])
    kept = ds._fps[0], ds._fps[2]

    class Failing:
        def close(self):
            raise OSError("disk gone")

    ds._fps[1].close()
    ds._fps[1] = Failing()
    with pytest.raises(OSError, match="disk gone"):
        ds.close()
    assert all(f.closed for f in kept)
