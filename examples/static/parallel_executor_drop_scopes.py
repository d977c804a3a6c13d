# The code example of paddle.static.ParallelExecutor.drop_local_exe_scopes (Paddle 2.x docs) with
# use_cuda = False: $CPU_NUM = 2 CPU places. The lines after "---" only print the results.
import paddle
import numpy
import os

use_cuda = False
# 注意：如果你使用CPU运行程序，需要具体设置CPU_NUM，
# 否则PaddlePaddle会把逻辑核的所有数目设为CPU_NUM，
# 在这种情况下，输入的batch size应大于CPU_NUM，
# 否则程序会异常中断。
if not use_cuda:
    os.environ['CPU_NUM'] = str(2)

paddle.enable_static()
train_program = paddle.static.Program()
startup_program = paddle.static.Program()
with paddle.static.program_guard(train_program, startup_program):
    data = paddle.static.data(name='X', shape=[None, 1], dtype='float32')
    hidden = paddle.static.nn.fc(data, 10)
    loss = paddle.mean(hidden)

place = paddle.CUDAPlace(0) if use_cuda else paddle.CPUPlace()
exe = paddle.static.Executor(place)
exe.run(startup_program)

parallel_exe = paddle.static.ParallelExecutor(use_cuda=use_cuda,
                                              main_program=train_program,
                                              loss_name=loss.name)

x = numpy.random.random(size=(10, 1)).astype('float32')
loss_data, = parallel_exe.run(feed={"X": x},
                              fetch_list=[loss.name])

parallel_exe.drop_local_exe_scopes()

# ---
print("loss", list(numpy.asarray(loss_data).shape), numpy.asarray(loss_data).tolist())
whole, = exe.run(train_program, feed={"X": x}, fetch_list=[loss.name])
print("whole_batch_loss", float(whole))
