// The report as data: CSV (one tidy row per measurement, for pandas) and JSON.
#include <nlohmann/json.hpp>

#include "report/csv_text.hpp"
#include "report/json_form.hpp"
#include "report/printers.hpp"

namespace ncclsweep {

// One column per key field, so no field lands in another's column: `point` is the sweep
// point's label alone, the modes, footprint and cache have columns of their own (empty
// for nccl-tests rows, which have none), `repeats` how many this row folds and `spread`
// its own relative spread.
void print_side_csv(const Side& side, const PrintStyle& style, std::ostream& out) {
  const SideIdentity& id = side.identity;
  out << "source,name,ranks,hosts,gpu,nccl,collective,dtype,op,root,size_bytes,count,placement,point,buffers,launch,"
         "buffer_footprint,footprint_bytes,cache,communicator,repeats,time_us,algbw_gbps,busbw_gbps,spread,wrong,"
         "link_peak_share\n";
  for (const SideRow& r : side.rows) {
    const MeasurementKey* k = r.measurement ? &*r.measurement : nullptr;
    out << csv_field(std::string(name_of(id.source))) << ',' << csv_field(id.name) << ',' << id.ranks << ',' << id.hosts << ','
        << csv_field(id.gpu) << ',' << csv_field(id.nccl_version) << ',' << collective_name(r.key) << ',' << dtype_name(r.key)
        << ',' << op_name(r.key) << ',' << r.root << ',' << r.key.size_bytes << ',' << r.count << ',' << name_of(r.key.placement)
        << ',' << csv_field(k ? k->point : std::string()) << ',' << (k ? std::string(name_of(k->buffers)) : "") << ','
        << (k ? std::string(name_of(k->launch)) : "") << ',' << csv_field(r.footprint ? label_of(*r.footprint) : "") << ','
        << (r.footprint_bytes ? std::to_string(*r.footprint_bytes) : "") << ',' << (r.cache ? name_of(*r.cache) : "") << ','
        << csv_field(!k ? "" : k->communicator.is_world() ? "world" : communicator_text(k->communicator)) << ',' << r.repeats << ',' << csv_number(r.time_us)
        << ',' << csv_number(r.algbw_gbps) << ',' << csv_number(r.busbw_gbps) << ','
        << (r.measured_spread ? csv_number(*r.measured_spread) : "") << ',' << (r.wrong ? std::to_string(*r.wrong) : "")
        << ',';
    if (style.link_peak_gbps) out << csv_number(r.busbw_gbps / *style.link_peak_gbps);
    out << '\n';
  }
}

nlohmann::json identity_json(const SideIdentity& id) {
  // engine: null for nccl-tests output, which says its tool in `source`.
  return {{"source", name_of(id.source)},
          {"path", id.path},
          {"name", id.name},
          {"ranks", id.ranks},
          {"hosts", id.hosts},
          {"gpu", id.gpu},
          {"nccl_version", id.nccl_version},
          {"cuda_version", id.cuda_version},
          {"engine", id.engine ? nlohmann::json(name_of(*id.engine)) : nlohmann::json(nullptr)}};
}

nlohmann::json row_json(const SideRow& r) {
  nlohmann::json j{{"collective", collective_name(r.key)}, {"dtype", dtype_name(r.key)}, {"op", op_name(r.key)},
                   {"root", r.root}, {"size_bytes", r.key.size_bytes}, {"count", r.count},
                   {"placement", name_of(r.key.placement)}, {"point", variant_text(r.key.variant)}, {"time_us", r.time_us},
                   {"algbw_gbps", r.algbw_gbps}, {"busbw_gbps", r.busbw_gbps},
                   {"wrong", r.wrong ? nlohmann::json(*r.wrong) : nlohmann::json(nullptr)}};
  if (r.measured_spread) j["measured_spread"] = *r.measured_spread;
  return j;
}

void print_side_json(const Side& side, const PrintStyle& style, std::ostream& out) {
  nlohmann::json j{{"identity", identity_json(side.identity)}, {"notes", side.notes}, {"rows", nlohmann::json::array()}};
  if (style.link_peak_gbps) j["link_peak_gbps"] = *style.link_peak_gbps;
  for (const SideRow& r : side.rows) j["rows"].push_back(row_json(r));
  out << j.dump(2) << "\n";
}

}  // namespace ncclsweep
