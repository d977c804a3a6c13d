"""A movie recommender, the Paddle 1.x way: user (id, gender, age, job) and movie (id, category) embeddings
through fc layers, a joint fc scoring the pair, square_error_cost, Adam. (The book's version pools LoD title
and category sequences and scores with cos_sim; this one keeps to fixed-length features.) LOSSES holds the
losses."""
from __future__ import print_function

import numpy as np
import paddle.fluid as fluid

USERS, GENDERS, AGES, JOBS, MOVIES, CATEGORIES, BATCH, STEPS = 30, 2, 7, 21, 40, 18, 8, 5


def embed_fc(name, size, dim, fc_size):
    ids = fluid.layers.data(name=name, shape=[1], dtype="int64")
    emb = fluid.layers.embedding(input=ids, size=[size, dim], dtype="float32", is_sparse=False,
                                 param_attr=name + "_table")
    return ids, fluid.layers.fc(input=emb, size=fc_size)


def get_usr_combined_features():
    inputs, features = [], []
    for name, size, dim in [("user_id", USERS, 16), ("gender_id", GENDERS, 8), ("age_id", AGES, 8),
                            ("job_id", JOBS, 8)]:
        ids, feature = embed_fc(name, size, dim, 8)
        inputs.append(ids)
        features.append(feature)
    concat = fluid.layers.concat(input=features, axis=1)
    return inputs, fluid.layers.fc(input=concat, size=16, act="tanh")


def get_mov_combined_features():
    inputs, features = [], []
    for name, size, dim in [("movie_id", MOVIES, 16), ("category_id", CATEGORIES, 8)]:
        ids, feature = embed_fc(name, size, dim, 8)
        inputs.append(ids)
        features.append(feature)
    concat = fluid.layers.concat(input=features, axis=1)
    return inputs, fluid.layers.fc(input=concat, size=16, act="tanh")


def set_fixed_parameters(program, scope, place, seed):
    rng = np.random.RandomState(seed)
    for param in sorted(program.all_parameters(), key=lambda p: p.name):
        value = rng.uniform(-0.3, 0.3, list(param.shape)).astype("float32")
        scope.find_var(param.name).get_tensor().set(value, place)


main_program, startup_program = fluid.Program(), fluid.Program()
with fluid.program_guard(main_program, startup_program), fluid.unique_name.guard():
    usr_inputs, usr = get_usr_combined_features()
    mov_inputs, mov = get_mov_combined_features()
    joint = fluid.layers.elementwise_mul(usr, mov)
    scale_infer = fluid.layers.scale(x=fluid.layers.fc(input=joint, size=1), scale=5.0)
    label = fluid.layers.data(name="score", shape=[1], dtype="float32")
    avg_cost = fluid.layers.mean(fluid.layers.square_error_cost(input=scale_infer, label=label))
    fluid.optimizer.Adam(learning_rate=0.01).minimize(avg_cost)

place = fluid.CPUPlace()
exe = fluid.Executor(place)
scope = fluid.core.Scope()
rng = np.random.RandomState(0)
sizes = [USERS, GENDERS, AGES, JOBS, MOVIES, CATEGORIES]
feeds = []
for step in range(STEPS):
    feed = dict((v.name, rng.randint(0, s, [BATCH, 1]).astype("int64"))
                for v, s in zip(usr_inputs + mov_inputs, sizes))
    feed["score"] = rng.uniform(1, 5, [BATCH, 1]).astype("float32")
    feeds.append(feed)
LOSSES = []
with fluid.scope_guard(scope):
    exe.run(startup_program)
    set_fixed_parameters(main_program, scope, place, seed=4)
    for feed in feeds:
        loss, = exe.run(main_program, feed=feed, fetch_list=[avg_cost])
        LOSSES.append(float(np.array(loss).reshape(-1)[0]))

if __name__ == "__main__":
    for step, loss in enumerate(LOSSES):
        print("step %d, loss %.6f" % (step, loss))
