// What the terminal table (check/report.cpp), the HTML page (check/report_html.cpp) and the diff report
// (check/onnx/diff_onnx.cpp) print the same way, so that their columns agree.
#pragma once

#include <string>

#include "check/report.h"

namespace plumb::check {

std::string num(double v);                       // "%.3g", "inf", "nan"
const char* verdict(const TensorRow& r);         // "ok", "DIFF" or "?" (inconclusive)
std::string mismatch_text(const ErrorStats& d);  // "3/48", or "shape" when the shapes differ
std::string bound_text(const ErrorStats& d);     // the "x bound" column: the ratio, "-" without one
std::string noise_term(const TensorRow& row);    // the "noise" column: the dominant noise term

// JSON text of a number ("inf" and "-inf" as strings, NaN as null) and of a string (quoted, escaped):
// the JSON reports of check and diff.
std::string json_num(double v);
std::string json_str(const std::string& s);
// HTML text of a string: <, >, & and " escaped.
std::string html_escape(const std::string& s);

}  // namespace plumb::check
