// What the terminal table (check/report.cpp) and the HTML page (check/report_html.cpp) print the
// same way, so that their columns agree.
#pragma once

#include <string>

#include "check/report.h"

namespace plumb::check {

std::string num(double v);                       // "%.3g", "inf", "nan"
const char* verdict(const TensorRow& r);         // "ok", "DIFF" or "?" (inconclusive)
std::string mismatch_text(const ErrorStats& d);  // "3/48", or "shape" when the shapes differ
std::string bound_text(const ErrorStats& d);     // the "x bound" column: the ratio, "-" without one
std::string noise_term(const TensorRow& row);    // the "noise" column: the dominant noise term

}  // namespace plumb::check
