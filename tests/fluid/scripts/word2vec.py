"""Word2vec N-gram language model, the Paddle 1.x way: four context words share one embedding table (by
param_attr name), concat, a sigmoid hidden fc and a softmax fc, cross_entropy, SGD. LOSSES holds the losses."""
from __future__ import print_function

import numpy as np
import paddle.fluid as fluid

DICT_SIZE, EMBED_SIZE, HIDDEN_SIZE, N, BATCH, STEPS = 50, 8, 16, 5, 6, 5


def inference_program(words, is_sparse):
    embeds = [fluid.layers.embedding(input=w, size=[DICT_SIZE, EMBED_SIZE], dtype="float32", is_sparse=is_sparse,
                                     param_attr="shared_w") for w in words]
    concat_embed = fluid.layers.concat(input=embeds, axis=1)
    hidden1 = fluid.layers.fc(input=concat_embed, size=HIDDEN_SIZE, act="sigmoid")
    return fluid.layers.fc(input=hidden1, size=DICT_SIZE, act="softmax")


def set_fixed_parameters(program, scope, place, seed):
    rng = np.random.RandomState(seed)
    for param in sorted(program.all_parameters(), key=lambda p: p.name):
        value = rng.uniform(-0.3, 0.3, list(param.shape)).astype("float32")
        scope.find_var(param.name).get_tensor().set(value, place)


main_program, startup_program = fluid.Program(), fluid.Program()
names = ["firstw", "secondw", "thirdw", "forthw"]
with fluid.program_guard(main_program, startup_program), fluid.unique_name.guard():
    words = [fluid.layers.data(name=n, shape=[1], dtype="int64") for n in names]
    next_word = fluid.layers.data(name="nextw", shape=[1], dtype="int64")
    predict_word = inference_program(words, is_sparse=False)
    avg_cost = fluid.layers.mean(fluid.layers.cross_entropy(input=predict_word, label=next_word))
    fluid.optimizer.SGD(learning_rate=0.5).minimize(avg_cost)

place = fluid.CPUPlace()
exe = fluid.Executor(place)
scope = fluid.core.Scope()
data = np.random.RandomState(0).randint(0, DICT_SIZE, [STEPS, BATCH, N, 1]).astype("int64")
LOSSES = []
with fluid.scope_guard(scope):
    exe.run(startup_program)
    set_fixed_parameters(main_program, scope, place, seed=3)
    PARAMETERS = sorted(p.name for p in main_program.all_parameters())
    for step in range(STEPS):
        feed = dict((n, data[step, :, i]) for i, n in enumerate(names + ["nextw"]))
        loss, = exe.run(main_program, feed=feed, fetch_list=[avg_cost])
        LOSSES.append(float(np.array(loss).reshape(-1)[0]))

if __name__ == "__main__":
    print("parameters:", PARAMETERS)
    for step, loss in enumerate(LOSSES):
        print("step %d, loss %.6f" % (step, loss))
