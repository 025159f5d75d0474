// What the GPU tests of graph capture share: the work `record(stream)` queues, captured in the
// calling thread's mode and instantiated; the graph and its executable live as long as the object.
#pragma once

#include <cuda_runtime_api.h>

#include "histtune/detail/cuda_check.hpp"

namespace histtune::test {

class CapturedGraph {
 public:
  template <class Record>
  CapturedGraph(cudaStream_t stream, Record&& record) {
    HT_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    record();
    HT_CUDA(cudaStreamEndCapture(stream, &graph_));
    HT_CUDA(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  CapturedGraph(const CapturedGraph&) = delete;
  CapturedGraph& operator=(const CapturedGraph&) = delete;
  ~CapturedGraph() {
    if (exec_) (void)cudaGraphExecDestroy(exec_);
    if (graph_) (void)cudaGraphDestroy(graph_);
  }
  void launch(cudaStream_t stream) const { HT_CUDA(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace histtune::test
