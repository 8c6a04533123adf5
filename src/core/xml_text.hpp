#pragma once
// Text inside an SVG or any XML document (report, compare, locate, soak and overlap
// plots): names come from hosts, run names and input files, so any of them may hold
// markup characters, control bytes or broken UTF-8, none of which may reach the page raw.
#include <string>
#include <string_view>

namespace ncclsweep {

// `text` as XML character data or attribute value: & < > " ' escaped; control bytes that
// XML 1.0 forbids, and bytes that are not well-formed UTF-8, become U+FFFD.
std::string xml_escape(std::string_view text);

}  // namespace ncclsweep
