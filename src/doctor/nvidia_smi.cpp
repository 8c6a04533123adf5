#include "doctor/nvidia_smi.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <sstream>

#include "doctor/system_reader.hpp"

extern char** environ;

namespace ncclsweep::doctor {
namespace {

// Position of the first "<tag" followed by '>', ' ' or '/', from `from`.
std::size_t find_open(std::string_view xml, std::string_view tag, std::size_t from) {
  const std::string open = "<" + std::string(tag);
  for (std::size_t at = xml.find(open, from); at != std::string_view::npos; at = xml.find(open, at + 1)) {
    const std::size_t after = at + open.size();
    if (after < xml.size() && (xml[after] == '>' || xml[after] == ' ' || xml[after] == '/')) return at;
  }
  return std::string_view::npos;
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// Leading number of "1980 MHz", "700.00 W", "16x"; -1 for "N/A" and other text.
double leading_number(const std::optional<std::string>& text) {
  if (!text || text->empty() || !(std::isdigit(static_cast<unsigned char>((*text)[0])))) return -1;
  try {
    return std::stod(*text);
  } catch (const std::exception&) {
    return -1;
  }
}

int leading_int(const std::optional<std::string>& text) { return static_cast<int>(leading_number(text)); }

// Sums every numeric element whose tag names an uncorrectable count, plus the older
// <double_bit><total>, inside the <volatile> ECC counters.
long long uncorrectable_errors(std::string_view gpu) {
  const auto ecc = xml_inner(gpu, "ecc_errors");
  if (!ecc) return -1;
  const auto recent = xml_inner(*ecc, "volatile");
  if (!recent) return -1;
  long long total = 0;
  bool any = false;
  std::size_t at = 0;
  while ((at = recent->find('<', at)) != std::string::npos) {
    const std::size_t end = recent->find('>', at);
    if (end == std::string::npos) break;
    const std::string tag = recent->substr(at + 1, end - at - 1);
    at = end + 1;
    if (tag.empty() || tag[0] == '/' || tag.find("uncorrectable") == std::string::npos) continue;
    const double n = leading_number(xml_inner(*recent, tag));
    if (n >= 0) total += static_cast<long long>(n), any = true;
  }
  const double double_bit = leading_number(xml_path(*recent, {"double_bit", "total"}));
  if (double_bit >= 0) total += static_cast<long long>(double_bit), any = true;
  return any ? total : -1;
}

}  // namespace

std::optional<std::string> xml_inner(std::string_view xml, std::string_view tag) {
  const std::size_t open = find_open(xml, tag, 0);
  if (open == std::string_view::npos) return std::nullopt;
  const std::size_t start = xml.find('>', open);
  if (start == std::string_view::npos) return std::nullopt;
  if (xml[start - 1] == '/') return std::string();  // <tag/>
  const std::size_t close = xml.find("</" + std::string(tag) + ">", start);
  if (close == std::string_view::npos) return std::nullopt;
  return trimmed(xml.substr(start + 1, close - start - 1));
}

std::optional<std::string> xml_path(std::string_view xml, std::initializer_list<std::string_view> tags) {
  std::optional<std::string> current(xml);
  for (const auto tag : tags) {
    current = xml_inner(*current, tag);
    if (!current) return std::nullopt;
  }
  return current;
}

std::vector<std::string> xml_elements(std::string_view xml, std::string_view tag) {
  std::vector<std::string> out;
  const std::string close = "</" + std::string(tag) + ">";
  for (std::size_t open = find_open(xml, tag, 0); open != std::string_view::npos;) {
    const std::size_t end = xml.find(close, open);
    if (end == std::string_view::npos) break;
    out.emplace_back(xml.substr(open, end + close.size() - open));
    open = find_open(xml, tag, end);
  }
  return out;
}

bool apply_nvidia_smi_xml(const std::string& xml, GpuFacts& gpu) {
  const auto gpus = xml_elements(xml, "gpu");
  const std::string* mine = nullptr;
  for (const auto& element : gpus) {
    const std::size_t id = element.find("id=\"");
    const std::string bus = id == std::string::npos ? "" : element.substr(id + 4, element.find('"', id + 4) - id - 4);
    if (!gpu.bus_id.empty() && sysfs_bus_id(bus) == sysfs_bus_id(gpu.bus_id)) mine = &element;
  }
  if (!mine && gpus.size() == 1) mine = &gpus.front();
  if (!mine) return false;
  const std::string& g = *mine;
  gpu.driver = xml_inner(xml, "driver_version").value_or("");
  gpu.model = xml_inner(g, "product_name").value_or("");
  gpu.performance_state = xml_inner(g, "performance_state").value_or("");
  gpu.sm_clock_mhz = leading_int(xml_path(g, {"clocks", "sm_clock"}));
  gpu.sm_clock_max_mhz = leading_int(xml_path(g, {"max_clocks", "sm_clock"}));
  gpu.mem_clock_mhz = leading_int(xml_path(g, {"clocks", "mem_clock"}));
  gpu.mem_clock_max_mhz = leading_int(xml_path(g, {"max_clocks", "mem_clock"}));
  // Drivers >= 535 say gpu_power_readings/current_power_limit; older ones power_readings/power_limit.
  auto power = xml_inner(g, "gpu_power_readings");
  if (!power) power = xml_inner(g, "power_readings");
  if (power) {
    auto limit = xml_inner(*power, "current_power_limit");
    if (!limit) limit = xml_inner(*power, "power_limit");
    gpu.power_limit_w = leading_number(limit);
    gpu.power_limit_max_w = leading_number(xml_inner(*power, "max_power_limit"));
  }
  gpu.ecc_uncorrectable = uncorrectable_errors(g);
  gpu.remapping_pending = xml_path(g, {"remapped_rows", "remapped_row_pending"}).value_or("") == "Yes";
  gpu.pcie_gen = leading_int(xml_path(g, {"pci", "pci_gpu_link_info", "pcie_gen", "current_link_gen"}));
  gpu.pcie_gen_max = leading_int(xml_path(g, {"pci", "pci_gpu_link_info", "pcie_gen", "max_link_gen"}));
  gpu.pcie_width = leading_int(xml_path(g, {"pci", "pci_gpu_link_info", "link_widths", "current_link_width"}));
  gpu.pcie_width_max = leading_int(xml_path(g, {"pci", "pci_gpu_link_info", "link_widths", "max_link_width"}));
  return true;
}

void apply_nvlink_status(const std::string& text, GpuFacts& gpu) {
  int up = 0, total = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const std::size_t link = line.find("Link ");
    if (link == std::string::npos || line.find(':', link) == std::string::npos) continue;
    ++total;
    if (line.find("inactive") == std::string::npos) ++up;
  }
  gpu.nvlink_up = up;
  gpu.nvlink_total = total;
}

std::optional<std::string> program_output(const std::vector<std::string>& argv) {
  int fds[2];
  if (argv.empty() || pipe(fds) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string out;
  if (spawned == 0) {
    char buf[8192];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  if (spawned != 0) return std::nullopt;
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return out;
}

}  // namespace ncclsweep::doctor
