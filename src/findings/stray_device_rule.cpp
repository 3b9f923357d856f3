// A process that works on one GPU and barely touches another (analysis/gpu_idle.h's stray
// devices): the classic `torch.cuda.set_device` called too late, which leaves every rank's CUDA
// context on GPU 0. The per-device rules (gpu.uneven_devices, gpu.devices_idle) leave such a
// device out, so this is the one finding about it.
#include "findings/rules.h"

namespace ks {

void rule_stray_devices(const RuleInput& in, std::vector<Finding>* out) {
  const GpuIdleResult& g = in.analyses.gpu_idle;
  if (g.stray_devices.empty()) return;
  const GpuIdleResult::StrayDevice& d = g.stray_devices.front();
  Finding f;
  f.id = "gpu.stray_device";
  f.severity = Severity::kWarning;
  f.title = strf(
      "This process also touched GPU %lld (%llu GPU op%s, %s in all) beside its work on "
      "GPU %lld: a CUDA context on a GPU it does not use",
      static_cast<long long>(d.device), static_cast<unsigned long long>(d.ops),
      d.ops == 1 ? "" : "s", format_duration(d.op_ns).c_str(),
      static_cast<long long>(g.main_device));
  f.meaning =
      "A few GPU ops ran on a device this process otherwise leaves alone. The usual cause is a "
      "tensor or CUDA call on the default device before torch.cuda.set_device(LOCAL_RANK) "
      "(.cuda() or device=\"cuda\" without an index, torch.cuda.current_device(), a library "
      "initialising on cuda:0): the process then holds a CUDA context, hundreds of MB, on that "
      "GPU too. With one such process per rank, GPU 0 carries every rank's context and runs out "
      "of memory first.";
  f.fix =
      "Call torch.cuda.set_device(local_rank) first, before any CUDA work, and name the device "
      "(f\"cuda:{local_rank}\") wherever tensors are made; or give each process only its own "
      "GPU with CUDA_VISIBLE_DEVICES. Show the first stray op on the timeline to find its "
      "caller.";
  f.number("device", static_cast<double>(d.device));
  f.number("ops", static_cast<double>(d.ops));
  f.number("op_us", us_of(d.op_ns), 3, "us");
  f.number("main_device", static_cast<double>(g.main_device));
  f.number("stray_devices", static_cast<double>(g.stray_devices.size()));
  f.range(d.first_ns, d.first_end_ns, "first op on GPU " + std::to_string(d.device));
  out->push_back(std::move(f));
}

}  // namespace ks
