"""Training steps, inference and data loading: where the time is kernels plus per-layer framework overhead.

The Paddle-API code below runs on torchpaddle and real Paddle; the plain-PyTorch column runs a hand-written
torch equivalent (``@wl.backend("torch")``: same architecture, same optimizer settings, idiomatic torch:
``zero_grad()``, ``torch.no_grad()``, torch.utils.data).

Every backend starts from the same weights (``_init_array``: a function of the Paddle state_dict key and
shape) and the same batch. A training workload's result is the loss of its first three steps, taken in setup
from those weights, so the cross-backend checksum compares the same computation; the timed steps go on
training from there. One iteration = one step (``ops=1``): the table's "us" column is microseconds per step.
"""
import zlib

import numpy as np

from . import workload

# A step takes 1-300 ms, so far fewer repeats than the op workloads (each repeat is at least one step).
_REPEATS = 40


def _init_array(key, shape):
    """Deterministic weights for a parameter or buffer, from its Paddle state_dict key and Paddle-layout shape
    (Linear weights are [in, out]); BatchNorm statistics start at mean 0, variance 1."""
    leaf = key.rsplit(".", 1)[-1]
    shape = [int(s) for s in shape]
    if leaf == "_mean":
        return np.zeros(shape, "float32")
    if leaf == "_variance":
        return np.ones(shape, "float32")
    rng = np.random.RandomState(zlib.crc32(key.encode()))
    if len(shape) == 1:
        low, high = (0.8, 1.2) if leaf == "weight" else (-0.1, 0.1)
        return rng.uniform(low, high, shape).astype("float32")
    fan_in = shape[0] if len(shape) == 2 else int(np.prod(shape[1:]))
    return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype("float32")


def _init_paddle(model):
    model.set_state_dict({k: _init_array(k, v.shape) for k, v in model.state_dict().items()})
    return model


def _init_torch(torch, model, special=None):
    """Load ``_init_array`` weights into a torch module named like the Paddle one (BatchNorm running_mean/var
    for _mean/_variance; Linear weights transposed). ``special(name, tensor)`` may fill a tensor itself."""
    linear_weights = {f"{n}.weight" for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
    with torch.no_grad():
        for name, tensor in model.state_dict().items():
            if name.endswith("num_batches_tracked") or (special and special(name, tensor)):
                continue
            key = name.replace("running_mean", "_mean").replace("running_var", "_variance")
            if name in linear_weights:
                tensor.copy_(torch.from_numpy(_init_array(key, tensor.shape[::-1]).T.copy()))
            else:
                tensor.copy_(torch.from_numpy(_init_array(key, tensor.shape)))
    return model


def _batch(shape, classes, seed=0):
    rng = np.random.RandomState(seed)
    return rng.standard_normal(shape).astype("float32"), rng.randint(0, classes, shape[0]).astype("int64")


def _trainer(paddle, model, optimizer, loss_fn, x, y):
    """build() tail shared by the Paddle-API training workloads."""
    def step():
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
        return loss

    first = [step().item() for _ in range(3)]

    def run(n):
        for _ in range(n):
            step()
        return first
    return run


def _torch_trainer(torch, model, optimizer, loss_fn, x, y):
    def step():
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        return loss

    first = [step().item() for _ in range(3)]

    def run(n):
        for _ in range(n):
            step()
        return first
    return run


# -- MLP -------------------------------------------------------------------------------------------------

@workload("mlp_adam_train", group="training", repeats=_REPEATS,
          requires=("nn.Linear", "nn.ReLU", "nn.Sequential", "nn.CrossEntropyLoss", "optimizer.Adam"))
def mlp_adam(paddle):
    """One Adam step of an MLP 784-512-512-10, batch 128, cross-entropy."""
    nn = paddle.nn
    model = _init_paddle(nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                       nn.Linear(512, 10)))
    opt = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    x, y = _batch([128, 784], 10)
    return _trainer(paddle, model, opt, nn.CrossEntropyLoss(), paddle.to_tensor(x), paddle.to_tensor(y))


@mlp_adam.backend("torch")
def mlp_adam_torch(shim):
    torch, nn = shim.torch, shim.torch.nn
    model = _init_torch(torch, nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                                             nn.Linear(512, 10)))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x, y = _batch([128, 784], 10)
    return _torch_trainer(torch, model, opt, nn.CrossEntropyLoss(), torch.from_numpy(x), torch.from_numpy(y))


# -- LeNet -----------------------------------------------------------------------------------------------

@workload("lenet_momentum_train", group="training", repeats=_REPEATS,
          requires=("vision.models.LeNet", "nn.CrossEntropyLoss", "optimizer.Momentum"))
def lenet_momentum(paddle):
    """One Momentum step of paddle.vision.models.LeNet on 1x28x28, batch 64."""
    model = _init_paddle(paddle.vision.models.LeNet())
    opt = paddle.optimizer.Momentum(learning_rate=0.01, momentum=0.9, parameters=model.parameters())
    x, y = _batch([64, 1, 28, 28], 10)
    return _trainer(paddle, model, opt, paddle.nn.CrossEntropyLoss(), paddle.to_tensor(x), paddle.to_tensor(y))


def _torch_lenet(nn):
    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2d(1, 6, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2, 2),
                                          nn.Conv2d(6, 16, 5, 1, 0), nn.ReLU(), nn.MaxPool2d(2, 2))
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))

        def forward(self, x):
            return self.fc(self.features(x).flatten(1))
    return LeNet()


@lenet_momentum.backend("torch")
def lenet_momentum_torch(shim):
    torch, nn = shim.torch, shim.torch.nn
    model = _init_torch(torch, _torch_lenet(nn))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = _batch([64, 1, 28, 28], 10)
    return _torch_trainer(torch, model, opt, nn.CrossEntropyLoss(), torch.from_numpy(x), torch.from_numpy(y))


# -- ResNet ----------------------------------------------------------------------------------------------

def _torch_resnet18(nn, num_classes=10):
    """ResNet-18 laid out and named as paddle.vision.models.resnet18."""
    class BasicBlock(nn.Module):
        def __init__(self, inplanes, planes, stride=1):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            self.downsample = None
            if stride != 1 or inplanes != planes:
                self.downsample = nn.Sequential(nn.Conv2d(inplanes, planes, 1, stride, bias=False),
                                                nn.BatchNorm2d(planes))

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + (x if self.downsample is None else self.downsample(x)))

    class ResNet18(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU()
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            inplanes = 64
            for i, planes in enumerate([64, 128, 256, 512]):
                stride = 1 if i == 0 else 2
                setattr(self, f"layer{i + 1}", nn.Sequential(BasicBlock(inplanes, planes, stride),
                                                             BasicBlock(planes, planes)))
                inplanes = planes
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(self.avgpool(x).flatten(1))
    return ResNet18()


_RESNET_API = ("vision.models.resnet18", "nn.CrossEntropyLoss")


@workload("resnet18_sgd_train", group="training", repeats=_REPEATS // 2, requires=_RESNET_API + ("optimizer.SGD",))
def resnet_sgd(paddle):
    """One SGD step of paddle.vision.models.resnet18(num_classes=10) on 3x32x32, batch 32."""
    model = _init_paddle(paddle.vision.models.resnet18(num_classes=10))
    opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=model.parameters())
    x, y = _batch([32, 3, 32, 32], 10)
    return _trainer(paddle, model, opt, paddle.nn.CrossEntropyLoss(), paddle.to_tensor(x), paddle.to_tensor(y))


@resnet_sgd.backend("torch")
def resnet_sgd_torch(shim):
    torch, nn = shim.torch, shim.torch.nn
    model = _init_torch(torch, _torch_resnet18(nn))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = _batch([32, 3, 32, 32], 10)
    return _torch_trainer(torch, model, opt, nn.CrossEntropyLoss(), torch.from_numpy(x), torch.from_numpy(y))


@workload("resnet18_infer", group="training", repeats=_REPEATS, requires=_RESNET_API + ("no_grad",))
def resnet_infer(paddle):
    """resnet18(num_classes=10) forward in eval mode under no_grad, 3x32x32, batch 32."""
    model = _init_paddle(paddle.vision.models.resnet18(num_classes=10))
    model.eval()
    x = paddle.to_tensor(_batch([32, 3, 32, 32], 10)[0])

    def run(n):
        with paddle.no_grad():
            for _ in range(n):
                out = model(x)
        return out
    return run


@resnet_infer.backend("torch")
def resnet_infer_torch(shim):
    torch = shim.torch
    model = _init_torch(torch, _torch_resnet18(torch.nn))
    model.eval()
    x = torch.from_numpy(_batch([32, 3, 32, 32], 10)[0])

    def run(n):
        with torch.no_grad():
            for _ in range(n):
                out = model(x)
        return out
    return run


# -- Transformer encoder ---------------------------------------------------------------------------------

_D_MODEL, _HEADS, _FFN, _LAYERS, _SEQ, _BATCH = 256, 4, 1024, 2, 128, 16


@workload("transformer_adamw_train", group="training", repeats=_REPEATS // 2,
          requires=("nn.TransformerEncoder", "nn.TransformerEncoderLayer", "optimizer.AdamW"))
def transformer_adamw(paddle):
    """One AdamW step of a 2-layer TransformerEncoder (d_model 256, 4 heads, ffn 1024, no dropout), seq 128,
    batch 16, mean squared error against a fixed target."""
    nn = paddle.nn
    layer = nn.TransformerEncoderLayer(_D_MODEL, _HEADS, _FFN, dropout=0.0)
    model = _init_paddle(nn.TransformerEncoder(layer, _LAYERS))
    opt = paddle.optimizer.AdamW(learning_rate=1e-4, parameters=model.parameters(), weight_decay=0.01)
    rng = np.random.RandomState(0)
    x = paddle.to_tensor(rng.standard_normal([_BATCH, _SEQ, _D_MODEL]).astype("float32"))
    target = paddle.to_tensor(rng.standard_normal([_BATCH, _SEQ, _D_MODEL]).astype("float32"))
    return _trainer(paddle, model, opt, lambda out, t: ((out - t) ** 2).mean(), x, target)


@transformer_adamw.backend("torch")
def transformer_adamw_torch(shim):
    torch, nn = shim.torch, shim.torch.nn
    layer = nn.TransformerEncoderLayer(_D_MODEL, _HEADS, _FFN, dropout=0.0, batch_first=True)
    model = nn.TransformerEncoder(layer, _LAYERS, enable_nested_tensor=False)

    def packed_qkv(name, tensor):
        # torch packs q/k/v projections into one in_proj; Paddle keeps q_proj, k_proj, v_proj Linear layers.
        if ".in_proj_" not in name:
            return False
        prefix, leaf = name.split(".in_proj_")
        parts = [_init_array(f"{prefix}.{p}_proj.{leaf}", [_D_MODEL, _D_MODEL] if leaf == "weight" else [_D_MODEL])
                 for p in "qkv"]
        tensor.copy_(torch.from_numpy(np.concatenate([p.T if leaf == "weight" else p for p in parts])))
        return True

    _init_torch(torch, model, special=packed_qkv)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    rng = np.random.RandomState(0)
    x = torch.from_numpy(rng.standard_normal([_BATCH, _SEQ, _D_MODEL]).astype("float32"))
    target = torch.from_numpy(rng.standard_normal([_BATCH, _SEQ, _D_MODEL]).astype("float32"))
    return _torch_trainer(torch, model, opt, lambda out, t: ((out - t) ** 2).mean(), x, target)


# -- DataLoader ------------------------------------------------------------------------------------------

_SAMPLES, _LOADER_BATCH = 2048, 64


def _dataset_class(base):
    class Synthetic(base):
        """In-memory images (3x32x32 float32) and int64 labels; __getitem__ returns NumPy arrays."""

        def __init__(self):
            rng = np.random.RandomState(0)
            self.images = rng.standard_normal([_SAMPLES, 3, 32, 32]).astype("float32")
            self.labels = rng.randint(0, 10, [_SAMPLES, 1]).astype("int64")

        def __getitem__(self, index):
            return self.images[index], self.labels[index]

        def __len__(self):
            return _SAMPLES
    return Synthetic


def _loader_workload(workers):
    doc = (f"One epoch of paddle.io.DataLoader over {_SAMPLES} in-memory 3x32x32 samples, batch {_LOADER_BATCH}, "
           f"num_workers={workers}; time per batch (torch: torch.utils.data)")

    @workload(f"dataloader_{workers}workers", group="training", ops=_SAMPLES // _LOADER_BATCH, repeats=_REPEATS,
              requires=("io.Dataset", "io.DataLoader"), doc=doc)
    def loader(paddle):
        dataset = _dataset_class(paddle.io.Dataset)()
        loader = paddle.io.DataLoader(dataset, batch_size=_LOADER_BATCH, shuffle=False, num_workers=workers)

        def run(n):
            for _ in range(n):
                total = 0
                for images, labels in loader:
                    total += int(labels.sum())
            return total
        return run
    return loader


for _workers in (0, 2):
    _loader_workload(_workers)
