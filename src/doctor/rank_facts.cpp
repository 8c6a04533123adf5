#include "doctor/rank_facts.hpp"

#include "core/environment.hpp"

#include <algorithm>
#include <sstream>
#include <string_view>

#include "doctor/system_reader.hpp"

namespace ncclsweep::doctor {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The value of "Name:\tvalue" in /proc/self/status.
std::string status_field(const std::string& status, const std::string& name) {
  std::istringstream lines(status);
  for (std::string line; std::getline(lines, line);) {
    if (starts_with(line, name + ":")) {
      std::string value = line.substr(name.size() + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      return value;
    }
  }
  return {};
}

// The policy of the first mapping in /proc/self/numa_maps: the task's policy unless
// that mapping was bound on its own.
std::string memory_policy(const SystemReader& reader) {
  const auto maps = read_line(reader, "/proc/self/numa_maps");
  if (!maps) return {};
  std::istringstream words(*maps);
  std::string address, policy;
  words >> address >> policy;
  return policy;
}

std::string cpu_dir(int cpu) { return "/sys/devices/system/cpu/cpu" + std::to_string(cpu); }

CpuFacts read_cpu(const SystemReader& reader, const std::vector<int>& cores) {
  CpuFacts cpu;
  cpu.smt = read_line(reader, "/sys/devices/system/cpu/smt/control").value_or("");
  int deepest_enabled = -1, deepest = -1;
  std::vector<std::string> names;
  for (int core : cores) {
    const std::string dir = cpu_dir(core);
    if (const auto governor = read_line(reader, dir + "/cpufreq/scaling_governor")) cpu.governors[*governor].push_back(core);
    if (const auto cur = read_integer(reader, dir + "/cpufreq/scaling_cur_freq")) {
      cpu.cur_khz_min = cpu.cur_khz_min < 0 ? *cur : std::min(cpu.cur_khz_min, *cur);
      cpu.cur_khz_max = std::max(cpu.cur_khz_max, *cur);
    }
    if (const auto max = read_integer(reader, dir + "/cpufreq/scaling_max_freq")) {
      cpu.scaling_max_khz = cpu.scaling_max_khz < 0 ? *max : std::min(cpu.scaling_max_khz, *max);
    }
    if (const auto hw = read_integer(reader, dir + "/cpufreq/cpuinfo_max_freq")) {
      cpu.hardware_max_khz = std::max(cpu.hardware_max_khz, *hw);
    }
    // cpuidle: stateN, deeper as N grows; a state is enabled unless its disable file says 1.
    const auto states = reader.list(dir + "/cpuidle");
    int core_deepest_enabled = -1;
    for (const auto& state : states) {
      if (!starts_with(state, "state")) continue;
      const int index = std::atoi(state.c_str() + 5);
      const std::string name = read_line(reader, dir + "/cpuidle/" + state + "/name").value_or(state);
      if (static_cast<std::size_t>(index) >= names.size()) names.resize(static_cast<std::size_t>(index) + 1);
      names[static_cast<std::size_t>(index)] = name;
      deepest = std::max(deepest, index);
      if (read_integer(reader, dir + "/cpuidle/" + state + "/disable").value_or(0) != 0) {
        if (std::find(cpu.disabled_cstates.begin(), cpu.disabled_cstates.end(), name) == cpu.disabled_cstates.end()) {
          cpu.disabled_cstates.push_back(name);
        }
      } else {
        core_deepest_enabled = std::max(core_deepest_enabled, index);
      }
    }
    if (!states.empty()) {
      deepest_enabled = deepest_enabled < 0 ? core_deepest_enabled : std::min(deepest_enabled, core_deepest_enabled);
    }
  }
  if (deepest >= 0) cpu.deepest_cstate = names[static_cast<std::size_t>(deepest)];
  if (deepest_enabled >= 0) cpu.deepest_enabled_cstate = names[static_cast<std::size_t>(deepest_enabled)];
  return cpu;
}

std::vector<RdmaPort> read_rdma(const SystemReader& reader) {
  std::vector<RdmaPort> ports;
  for (const auto& device : reader.list("/sys/class/infiniband")) {
    const std::string dir = "/sys/class/infiniband/" + device;
    const int numa = static_cast<int>(read_integer(reader, dir + "/device/numa_node").value_or(-1));
    for (const auto& port : reader.list(dir + "/ports")) {
      RdmaPort p;
      p.device = device;
      p.port = port;
      p.state = read_line(reader, dir + "/ports/" + port + "/state").value_or("");
      p.rate = read_line(reader, dir + "/ports/" + port + "/rate").value_or("");
      p.numa_node = numa;
      ports.push_back(p);
    }
  }
  return ports;
}

void read_config_files(const SystemReader& reader, const std::map<std::string, std::string>& environment,
                       RankFacts& facts) {
  // NCCL reads NCCL_CONF_FILE if set, else ~/.nccl.conf; then /etc/nccl.conf.
  std::vector<std::string> files;
  if (const auto it = environment.find("NCCL_CONF_FILE"); it != environment.end()) {
    files.push_back(it->second);
  } else if (const auto home = environment.find("HOME"); home != environment.end()) {
    files.push_back(home->second + "/.nccl.conf");
  }
  files.push_back("/etc/nccl.conf");
  for (const auto& file : files) {
    if (const auto text = reader.read(file)) {
      const auto vars = parse_nccl_conf(*text);
      if (!vars.empty()) facts.config_files[file] = vars;
    }
  }
}

}  // namespace

bool is_input_file_variable(const std::string& name) {
  if (!starts_with(name, "NCCL_") || !ends_with(name, "_FILE")) return false;
  return name != "NCCL_DEBUG_FILE" && !ends_with(name, "_DUMP_FILE");
}

std::map<std::string, std::string> parse_nccl_conf(const std::string& text) {
  std::map<std::string, std::string> vars;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    line.erase(0, line.find_first_not_of(" \t"));
    if (line.empty() || line[0] == '#') continue;
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string value = line.substr(eq + 1);
    value.erase(0, value.find_first_not_of(" \t"));
    value.erase(value.find_last_not_of(" \t\r") + 1);
    std::string name = line.substr(0, eq);
    name.erase(name.find_last_not_of(" \t") + 1);
    vars[name] = value;
  }
  return vars;
}

std::map<std::string, std::string> doctor_environment(char** envp) {
  return environment_with_prefixes(envp, {"NCCL_", "CUDA_VISIBLE_DEVICES", "HOME"});
}

RankFacts collect_rank_facts(const SystemReader& reader, const RankIdentity& identity,
                             const std::map<std::string, std::string>& environment, GpuFacts gpu) {
  RankFacts facts;
  facts.identity = identity;
  for (const auto& [name, value] : environment) {
    if (name == "HOME") continue;  // only used to find ~/.nccl.conf
    facts.environment[name] = value;
    if (is_input_file_variable(name)) {
      const std::string reason = value.empty() ? "empty path" : reader.unreadable_reason(value);
      if (!reason.empty()) facts.file_problems[name] = value + ": " + reason;
    }
  }
  read_config_files(reader, environment, facts);
  const std::string status = reader.read("/proc/self/status").value_or("");
  facts.affinity = parse_cpu_list(status_field(status, "Cpus_allowed_list"));
  facts.memory_policy = memory_policy(reader);
  facts.cpu = read_cpu(reader, facts.affinity);
  if (!gpu.bus_id.empty()) {
    const std::string dir = "/sys/bus/pci/devices/" + sysfs_bus_id(gpu.bus_id);
    gpu.numa_node = static_cast<int>(read_integer(reader, dir + "/numa_node").value_or(-1));
    gpu.local_cpulist = read_line(reader, dir + "/local_cpulist").value_or("");
  }
  facts.gpu = std::move(gpu);
  facts.rdma = read_rdma(reader);
  facts.net_interfaces = reader.list("/sys/class/net");
  return facts;
}

}  // namespace ncclsweep::doctor
