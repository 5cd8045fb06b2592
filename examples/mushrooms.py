"""Mushrooms – tasty or deadly? The first program of the Chainer documentation.

A two-hidden-layer perceptron learns from 22 categorical attributes whether a mushroom
is edible or poisonous (the UCI Mushroom data set, shipped in examples/data/). The code
follows the documentation's glance example; only the command-line options, the seed and
the closing summary are added.

    python examples/mushrooms.py                    # 50 epochs on the CPU
    python examples/mushrooms.py --device @cupy:0   # on a GPU
"""

import argparse
import os
import time

import matplotlib
import numpy as np

import chainer as ch
import chainer.functions as F
import chainer.links as L
from chainer import datasets, training
from chainer.training import extensions

matplotlib.use("Agg")

HERE = os.path.dirname(os.path.abspath(__file__))


# Network definition
def MLP(n_units, n_out):
    layer = ch.Sequential(L.Linear(n_units), F.relu)
    model = layer.repeat(2)
    model.append(L.Linear(n_out))

    return model


def main(argv=None):
    parser = argparse.ArgumentParser(description="Chainer example: mushrooms, tasty or deadly?")
    parser.add_argument("--epoch", "-e", type=int, default=50, help="Number of sweeps over the dataset")
    parser.add_argument(
        "--device", "-d", default="-1", help="Device specifier: '@numpy', '@cupy:0', or an integer (-1 for the CPU)"
    )
    parser.add_argument("--out", "-o", default="result", help="Directory for the log, plots, graph and snapshots")
    parser.add_argument("--data", default=os.path.join(HERE, "data", "mushrooms.csv"), help="Path to mushrooms.csv")
    parser.add_argument("--seed", type=int, default=0, help="Random seed (initial weights, split, shuffling)")
    args = parser.parse_args(argv)

    np.random.seed(args.seed)
    device = ch.get_device(args.device)
    start = time.perf_counter()

    mushroomsfile = args.data
    data_array = np.genfromtxt(mushroomsfile, delimiter=",", dtype=str, skip_header=1)
    for col in range(data_array.shape[1]):
        data_array[:, col] = np.unique(data_array[:, col], return_inverse=True)[1]

    X = data_array[:, 1:].astype(np.float32)
    Y = data_array[:, 0].astype(np.int32)[:, None]
    train, test = datasets.split_dataset_random(
        datasets.TupleDataset(X, Y), int(data_array.shape[0] * 0.7), seed=args.seed
    )

    train_iter = ch.iterators.SerialIterator(train, 100)
    test_iter = ch.iterators.SerialIterator(test, 100, repeat=False, shuffle=False)

    model = L.Classifier(MLP(44, 1), lossfun=F.sigmoid_cross_entropy, accfun=F.binary_accuracy)
    model.to_device(device)

    # Setup an optimizer
    optimizer = ch.optimizers.SGD().setup(model)

    # Create the updater, using the optimizer
    updater = training.StandardUpdater(train_iter, optimizer, device=device)

    # Set up a trainer
    trainer = training.Trainer(updater, (args.epoch, "epoch"), out=args.out)

    # Evaluate the model with the test dataset for each epoch
    trainer.extend(extensions.Evaluator(test_iter, model, device=device))

    # Dump a computational graph from 'loss' variable at the first iteration
    # The "main" refers to the target link of the "main" optimizer.
    trainer.extend(extensions.DumpGraph("main/loss"))

    trainer.extend(extensions.snapshot(), trigger=(20, "epoch"))

    # Write a log of evaluation statistics for each epoch
    trainer.extend(extensions.LogReport())

    # Save two plot images to the result dir
    trainer.extend(extensions.PlotReport(["main/loss", "validation/main/loss"], "epoch", file_name="loss.png"))
    trainer.extend(
        extensions.PlotReport(["main/accuracy", "validation/main/accuracy"], "epoch", file_name="accuracy.png")
    )

    # Print selected entries of the log to stdout
    trainer.extend(
        extensions.PrintReport(
            ["epoch", "main/loss", "validation/main/loss", "main/accuracy", "validation/main/accuracy", "elapsed_time"]
        )
    )

    # Show a progress bar with the estimated time left
    trainer.extend(extensions.ProgressBar(update_interval=100))

    # Run the training
    trainer.run()

    x, t = test[np.random.randint(len(test))]

    predict = model.predictor(device.send(x[None])).array
    predict = ch.backend.CpuDevice().send(predict)[0][0]

    if predict >= 0:
        print("Predicted Poisonous, Actual " + ["Edible", "Poisonous"][t[0]])
    else:
        print("Predicted Edible, Actual " + ["Edible", "Poisonous"][t[0]])

    log = trainer.get_extension("LogReport").log
    final = log[-1]
    print()
    print(
        f"Final validation accuracy: {final['validation/main/accuracy']:.4f} "
        f"(loss {final['validation/main/loss']:.4f}) after {final['epoch']} epochs"
    )
    print(f"Wall time: {time.perf_counter() - start:.1f} s on {device}")
    out = os.path.abspath(args.out)
    print(f"Log:       {os.path.join(out, 'log')}")
    print(f"Plots:     {os.path.join(out, 'loss.png')}, {os.path.join(out, 'accuracy.png')}")
    print(f"Graph:     {os.path.join(out, 'cg.dot')}")
    snapshots = sorted(f for f in os.listdir(out) if f.startswith("snapshot"))
    print(f"Snapshots: {', '.join(os.path.join(out, s) for s in snapshots) or 'none (fewer than 20 epochs)'}")
    return final


if __name__ == "__main__":
    main()
