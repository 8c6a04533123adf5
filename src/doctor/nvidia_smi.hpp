#pragma once
// nvidia-smi as a source of GPU facts: `nvidia-smi -q -x -i BUS` (XML) and
// `nvidia-smi nvlink -s -i BUS` (text). No XML library is in the stack, and only a
// few tags are needed, so a small extractor reads them.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/rank_facts.hpp"

namespace ncclsweep::doctor {

// The inner text of the first <tag> element (attributes allowed) in `xml`; nothing
// when absent. "<clocks>" does not match "<clocks_event_reasons>".
std::optional<std::string> xml_inner(std::string_view xml, std::string_view tag);
// Follows a path of nested tags: xml_path(xml, {"max_clocks", "sm_clock"}).
std::optional<std::string> xml_path(std::string_view xml, std::initializer_list<std::string_view> tags);
// Every <tag ...>...</tag> element, whole (with its opening tag, so attributes are kept).
std::vector<std::string> xml_elements(std::string_view xml, std::string_view tag);

// Fills model, driver, clocks, power, ECC and PCIe fields of `gpu` from `nvidia-smi
// -q -x` output, using the <gpu> element whose id matches gpu.bus_id (or the only
// one). Returns false when the XML holds no such GPU.
bool apply_nvidia_smi_xml(const std::string& xml, GpuFacts& gpu);

// Fills nvlink_up and nvlink_total from `nvidia-smi nvlink -s` output
// ("Link 0: 26.562 GB/s", "Link 1: <inactive>").
void apply_nvlink_status(const std::string& text, GpuFacts& gpu);

// Runs a program (no shell) and returns its standard output, or nothing when it could
// not start or exited non-zero.
std::optional<std::string> program_output(const std::vector<std::string>& argv);

}  // namespace ncclsweep::doctor
