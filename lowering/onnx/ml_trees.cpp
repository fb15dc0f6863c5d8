// ai.onnx.ml tree ensembles (TreeEnsemble, TreeEnsembleClassifier, TreeEnsembleRegressor);
// conventions at the top of ml.cpp, shared helpers in ml_common.h.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lowering/onnx/containers.h"
#include "lowering/onnx/helpers.h"
#include "lowering/onnx/ml_common.h"
#include "lowering/onnx/registry.h"

namespace plumb::lower::ml {

using BK = ir::BinaryKind;
using UK = ir::UnaryKind;
using CK = ir::CompareKind;
using RK = ir::ReduceKind;

namespace {

// ---- tree ensembles ------------------------------------------------------------------------------

// Node comparison kinds; TreeEnsemble-5 numbers them 0..6 in this order.
enum Mode : int { kLeq, kLt, kGte, kGt, kEq, kNeq, kMember, kLeaf };

// One ensemble in a uniform form. Positions 0..M-1 are interior nodes, M..M+L-1 leaves.
struct Forest {
  Ints feature;   // [M]
  Doubles split;  // [M]
  std::vector<int> mode;
  std::vector<bool> nan_true;
  std::vector<Doubles> members;  // [M], for kMember
  Ints tchild, fchild;           // [M + L]; a leaf's children are itself
  Ints roots;                    // one position per tree
  int64_t leaves = 0;
  std::vector<std::vector<std::pair<int64_t, double>>> votes;  // per leaf: (target, weight)
  // TreeEnsemble-5: a NaN feature takes the true branch when the comparison is true or
  // nan_true is set; the older ops: a NaN feature takes the branch nan_true names.
  bool nan_or = false;
  int64_t m() const { return static_cast<int64_t>(feature.size()); }
};

// The longest root-to-leaf path (interior nodes), or an error for a cycle or a bad child.
Expected<int64_t> forest_depth(LowerCtx& cx, const Forest& f) {
  const int64_t m = f.m(), total = m + f.leaves;
  std::vector<int64_t> depth(static_cast<size_t>(total), -1);  // -1 unknown, -2 on the stack
  int64_t best = 0;
  for (int64_t root : f.roots) {
    std::vector<std::pair<int64_t, int>> stack{{root, 0}};
    while (!stack.empty()) {
      auto& [p, state] = stack.back();
      if (p < 0 || p >= total)
        return cx.invalid("tree ensemble: child position " + std::to_string(p) + " out of range");
      if (p >= m) {
        depth[p] = 0;
        stack.pop_back();
        continue;
      }
      if (state == 0) {
        if (depth[p] >= 0) {
          stack.pop_back();
          continue;
        }
        if (depth[p] == -2) return cx.invalid("tree ensemble: the nodes form a cycle");
        depth[p] = -2;
        state = 1;
        const int64_t t = f.tchild[p], e = f.fchild[p];
        stack.push_back({t, 0});
        stack.push_back({e, 0});
        continue;
      }
      const int64_t t = f.tchild[p], e = f.fchild[p];
      if (depth[t] < 0 || depth[e] < 0) return cx.invalid("tree ensemble: the nodes form a cycle");
      depth[p] = 1 + std::max(depth[t], depth[e]);
      stack.pop_back();
    }
    best = std::max(best, depth[root]);
  }
  return best;
}

// The leaf reached by every tree for every row of f64 x [N, F]: i64 [N, T] leaf numbers (0..L-1).
Expected<ValueId> forest_leaves(LowerCtx& cx, const Forest& f, ValueId x) {
  PLUMB_ASSIGN_OR_RETURN(int64_t depth, forest_depth(cx, f));
  const int64_t m = f.m(), t = static_cast<int64_t>(f.roots.size());
  const ir::Dim features = cx.dim(x, 1);
  for (int64_t j = 0; j < m; ++j)
    if (f.feature[j] < 0 || (features.is_static() && f.feature[j] >= features.size))
      return cx.invalid("tree ensemble: node " + std::to_string(j) + " reads feature " +
                        std::to_string(f.feature[j]) + ", outside [0, " +
                        (features.is_static() ? std::to_string(features.size) : "F") + ")");
  ValueId nt = rows_by(cx, x, t);
  ValueId pos = spread(cx, i64_const(cx, {t}, f.roots), nt, {1});
  if (m > 0 && depth > 0) {
    // cond [N, M]: the outcome of every interior node for every row.
    ValueId xf = cx.b.gather(ir::GatherKind::Axis, x, i64_const(cx, {m}, f.feature), 1);
    ValueId nm = shape_value(cx, xf);
    ValueId thr = spread(cx, f64_const(cx, {m}, f.split), nm, {1});
    std::set<int> used(f.mode.begin(), f.mode.end());
    ValueId cond = ir::kNoValue;
    static const ir::CompareKind kCmp[] = {CK::Le, CK::Lt, CK::Ge, CK::Gt, CK::Eq, CK::Ne};
    for (int md : used) {
      ValueId c;
      if (md == kMember) {
        // Pairs (node, member value): x[:, feature[node]] == value, counted per node by a matmul.
        Ints pf;
        Doubles pv, inc;
        std::vector<int64_t> pn;
        for (int64_t j = 0; j < m; ++j)
          if (f.mode[j] == kMember)
            for (double v : f.members[j]) pf.push_back(f.feature[j]), pv.push_back(v), pn.push_back(j);
        const int64_t p = static_cast<int64_t>(pv.size());
        if (p == 0) {
          c = cx.b.compare(CK::Ne, thr, thr);  // false: member nodes hold split 0
        } else {
          inc.assign(static_cast<size_t>(p * m), 0.0);
          for (int64_t q = 0; q < p; ++q) inc[q * m + pn[q]] = 1.0;
          ValueId xp = cx.b.gather(ir::GatherKind::Axis, x, i64_const(cx, {p}, pf), 1);
          ValueId eq = cx.b.compare(CK::Eq, xp, spread(cx, f64_const(cx, {p}, pv), shape_value(cx, xp), {1}));
          ValueId cnt = cx.b.matmul(cx.b.cast(eq, kF64), f64_const(cx, {p, m}, inc), kF64);
          c = cx.b.compare(CK::Gt, cnt, splat(cx, 0.0, cnt));
        }
      } else {
        c = cx.b.compare(kCmp[md], xf, thr);
      }
      if (cond == ir::kNoValue) {
        cond = c;
      } else {
        Ints mask;
        for (int64_t j = 0; j < m; ++j) mask.push_back(f.mode[j] == md);
        ValueId mk = spread(cx, cx.b.const_ints(DType::Bool, {m}, mask), nm, {1});
        cond = cx.b.select(mk, c, cond);
      }
    }
    if (std::any_of(f.nan_true.begin(), f.nan_true.end(), [](bool b) { return b; }) || !f.nan_or) {
      Ints nt_mask;
      for (int64_t j = 0; j < m; ++j) nt_mask.push_back(f.nan_true[j]);
      ValueId isnan = cx.b.compare(CK::Ne, xf, xf);
      ValueId tracks = spread(cx, cx.b.const_ints(DType::Bool, {m}, nt_mask), nm, {1});
      cond = f.nan_or ? bin(cx, BK::Or, cond, bin(cx, BK::And, isnan, tracks))
                      : cx.b.select(isnan, tracks, cond);
    }
    ValueId tch = i64_const(cx, {m + f.leaves}, f.tchild), fch = i64_const(cx, {m + f.leaves}, f.fchild);
    ValueId last = spread(cx, cx.b.scalar_int(DType::I64, m - 1), nt, {});
    for (int64_t s = 0; s < depth; ++s) {
      ValueId c = cx.b.gather(ir::GatherKind::Elements, cond, bin(cx, BK::Min, pos, last), 1);
      pos = cx.b.select(c, cx.b.gather(ir::GatherKind::Axis, tch, pos, 0),
                        cx.b.gather(ir::GatherKind::Axis, fch, pos, 0));
    }
  }
  return bin(cx, BK::Sub, pos, spread(cx, cx.b.scalar_int(DType::I64, m), nt, {}));
}

enum class Agg { kSum, kAverage, kMin, kMax };

// f64 [N, K] aggregate of the leaf votes over the trees. An entry no vote reaches is 0 (sum,
// average) or +-`big` (min, max: the largest finite value of the result dtype, as the reference).
ValueId forest_aggregate(LowerCtx& cx, const Forest& f, ValueId leaf, int64_t k, Agg agg, double big,
                         ValueId x) {
  const int64_t l = f.leaves, t = static_cast<int64_t>(f.roots.size());
  const double none = agg == Agg::kMin ? big : agg == Agg::kMax ? -big : 0.0;
  if (t == 0 || l == 0) return spread(cx, cx.b.scalar_float(kF64, none), rows_by(cx, x, k), {});
  Doubles w(static_cast<size_t>(l * k), none);
  for (int64_t i = 0; i < l; ++i)
    for (auto [tgt, wt] : f.votes[i]) {
      double& c = w[i * k + tgt];
      c = agg == Agg::kMin ? std::min(c, wt) : agg == Agg::kMax ? std::max(c, wt) : c + wt;
    }
  ValueId per_tree = cx.b.gather(ir::GatherKind::Axis, f64_const(cx, {l, k}, w), leaf, 0);  // [N, T, K]
  const ir::ReduceKind kind = agg == Agg::kMin ? RK::Min : agg == Agg::kMax ? RK::Max : RK::Sum;
  ValueId r = cx.b.reduce(kind, per_tree, {1});
  if (agg == Agg::kAverage) r = bin(cx, BK::Div, r, splat(cx, static_cast<double>(t), r));
  return r;
}

double dtype_max(DType dt) {
  switch (dt) {
    case DType::F64: return std::numeric_limits<double>::max();
    case DType::F16: return 65504.0;
    default: return std::numeric_limits<float>::max();
  }
}

Status check_target(LowerCtx& cx, int64_t tgt, int64_t k, const char* what) {
  if (tgt < 0 || tgt >= k)
    return cx.invalid(std::string("tree ensemble: ") + what + " " + std::to_string(tgt) +
                      " out of range [0, " + std::to_string(k) + ")");
  return Status::ok();
}

// TreeEnsemble-5.
Status lower_tree_ensemble(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x0, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  const DType dt = cx.type(x0).dtype;
  if (!ir::is_float(dt) || rank_of(cx, x0) != 2)
    return cx.invalid("TreeEnsemble input must be a float [N, F]");
  Forest f;
  f.nan_or = true;
  f.feature = attr_ints(n, "nodes_featureids");
  const int64_t m = f.m();
  const onnx::Tensor* splits = attr_tensor(n, "nodes_splits");
  const onnx::Tensor* modes = attr_tensor(n, "nodes_modes");
  const onnx::Tensor* lw = attr_tensor(n, "leaf_weights");
  if (!splits || !modes || !lw)
    return cx.invalid("TreeEnsemble needs nodes_splits, nodes_modes and leaf_weights");
  PLUMB_ASSIGN_OR_RETURN(f.split, tensor_doubles(*splits));
  PLUMB_ASSIGN_OR_RETURN(Ints md, tensor_ints(*modes));
  PLUMB_ASSIGN_OR_RETURN(Doubles weights, tensor_doubles(*lw));
  Ints tn = attr_ints(n, "nodes_truenodeids"), fn = attr_ints(n, "nodes_falsenodeids");
  Ints tl = attr_ints(n, "nodes_trueleafs"), fl = attr_ints(n, "nodes_falseleafs");
  Ints mv = attr_ints(n, "nodes_missing_value_tracks_true");
  Ints targets = attr_ints(n, "leaf_targetids");
  if (mv.empty()) mv.assign(static_cast<size_t>(m), 0);
  for (size_t len : {f.split.size(), md.size(), tn.size(), fn.size(), tl.size(), fl.size(), mv.size()})
    if (static_cast<int64_t>(len) != m)
      return cx.invalid("TreeEnsemble: the nodes_* attributes differ in length");
  if (targets.size() != weights.size())
    return cx.invalid("TreeEnsemble: leaf_targetids and leaf_weights differ in length");
  PLUMB_ASSIGN_OR_RETURN(int64_t k, n.attr_int("n_targets", -1));
  if (k < 0) return cx.invalid("TreeEnsemble: n_targets is required");
  PLUMB_ASSIGN_OR_RETURN(int64_t agg_i, n.attr_int("aggregate_function", 1));
  PLUMB_ASSIGN_OR_RETURN(int64_t post_i, n.attr_int("post_transform", 0));
  if (agg_i < 0 || agg_i > 3) return cx.invalid("TreeEnsemble: aggregate_function " + std::to_string(agg_i));
  if (post_i < 0 || post_i > 4) return cx.invalid("TreeEnsemble: post_transform " + std::to_string(post_i));
  const Agg agg = agg_i == 0 ? Agg::kAverage : agg_i == 1 ? Agg::kSum : agg_i == 2 ? Agg::kMin : Agg::kMax;
  f.leaves = static_cast<int64_t>(weights.size());
  f.votes.resize(static_cast<size_t>(f.leaves));
  for (int64_t i = 0; i < f.leaves; ++i) {
    PLUMB_RETURN_IF_ERROR(check_target(cx, targets[i], k, "leaf target id"));
    f.votes[i] = {{targets[i], weights[i]}};
  }
  // Member sets: membership_values lists each BRANCH_MEMBER node's set, in node order, each
  // closed by a NaN.
  Doubles mem;
  if (const onnx::Tensor* t = attr_tensor(n, "membership_values")) {
    PLUMB_ASSIGN_OR_RETURN(mem, tensor_doubles(*t));
  }
  size_t mp = 0;
  f.members.resize(static_cast<size_t>(m));
  for (int64_t j = 0; j < m; ++j) {
    if (md[j] < 0 || md[j] > 6) return cx.invalid("TreeEnsemble: node mode " + std::to_string(md[j]));
    f.mode.push_back(static_cast<int>(md[j]));
    f.nan_true.push_back(mv[j] != 0);
    if (md[j] == kMember) {
      while (mp < mem.size() && !std::isnan(mem[mp])) f.members[j].push_back(mem[mp++]);
      if (mp >= mem.size()) return cx.invalid("TreeEnsemble: membership_values has too few sets");
      ++mp;
    }
    if (md[j] == kMember) f.split[j] = 0.0;
  }
  f.tchild.resize(static_cast<size_t>(m + f.leaves));
  f.fchild.resize(static_cast<size_t>(m + f.leaves));
  for (int64_t j = 0; j < m; ++j) {
    f.tchild[j] = tl[j] ? m + tn[j] : tn[j];
    f.fchild[j] = fl[j] ? m + fn[j] : fn[j];
    const int64_t lim_t = tl[j] ? f.leaves : m, lim_f = fl[j] ? f.leaves : m;
    if (tn[j] < 0 || tn[j] >= lim_t || fn[j] < 0 || fn[j] >= lim_f)
      return cx.invalid("TreeEnsemble: node " + std::to_string(j) + " has a child out of range");
  }
  for (int64_t i = 0; i < f.leaves; ++i) f.tchild[m + i] = f.fchild[m + i] = m + i;
  for (int64_t root : attr_ints(n, "tree_roots")) {
    if (root < 0 || root >= m)
      return cx.invalid("TreeEnsemble: tree root " + std::to_string(root) + " out of range");
    // A tree that is one leaf: a node whose two branches are the same leaf.
    const bool leaf = tl[root] && fl[root] && tn[root] == fn[root];
    f.roots.push_back(leaf ? m + tn[root] : root);
  }
  ValueId x = to_f64(cx, x0);
  PLUMB_ASSIGN_OR_RETURN(ValueId leaf, forest_leaves(cx, f, x));
  ValueId y = forest_aggregate(cx, f, leaf, k, agg, dtype_max(dt), x);
  y = post_transform(cx, y, static_cast<Post>(post_i));
  cx.set_output(n, 0, from_f64(cx, y, dt));
  return cx.error();
}

// The node table of TreeEnsembleClassifier/Regressor (opsets 1..3): (tree id, node id) tuples,
// trees taken in increasing tree id, each rooted at its first listed node.
struct OldNodes {
  Forest f;
  std::map<std::pair<int64_t, int64_t>, int64_t> pos;  // (tree, node) -> position
};

Expected<OldNodes> old_nodes(LowerCtx& cx, const OnnxNode& n) {
  OldNodes o;
  Forest& f = o.f;
  Ints trees = attr_ints(n, "nodes_treeids"), ids = attr_ints(n, "nodes_nodeids");
  Ints feat = attr_ints(n, "nodes_featureids"), tn = attr_ints(n, "nodes_truenodeids"),
       fn = attr_ints(n, "nodes_falsenodeids"), mv = attr_ints(n, "nodes_missing_value_tracks_true");
  Strings modes = attr_strings(n, "nodes_modes");
  PLUMB_ASSIGN_OR_RETURN(Doubles vals, floats_or_tensor(n, "nodes_values"));
  const size_t cnt = trees.size();
  if (mv.empty()) mv.assign(cnt, 0);
  if (vals.empty()) vals.assign(cnt, 0.0);
  for (size_t len : {ids.size(), feat.size(), tn.size(), fn.size(), mv.size(), modes.size(), vals.size()})
    if (len != cnt) return cx.invalid(n.op_type + ": the nodes_* attributes differ in length");
  static const std::map<std::string, int> kModes = {
      {"BRANCH_LEQ", kLeq}, {"BRANCH_LT", kLt},   {"BRANCH_GTE", kGte}, {"BRANCH_GT", kGt},
      {"BRANCH_EQ", kEq},   {"BRANCH_NEQ", kNeq}, {"LEAF", kLeaf}};
  // Interior nodes first, then leaves, in listed order.
  std::vector<int> md(cnt);
  int64_t m = 0;
  for (size_t i = 0; i < cnt; ++i) {
    auto it = kModes.find(modes[i]);
    if (it == kModes.end()) return cx.invalid(n.op_type + ": node mode '" + modes[i] + "'");
    md[i] = it->second;
    m += md[i] != kLeaf;
  }
  Ints where(cnt);
  int64_t next_in = 0, next_leaf = m;
  for (size_t i = 0; i < cnt; ++i) {
    where[i] = md[i] != kLeaf ? next_in++ : next_leaf++;
    if (!o.pos.emplace(std::make_pair(trees[i], ids[i]), where[i]).second)
      return cx.invalid(n.op_type + ": node (" + std::to_string(trees[i]) + ", " + std::to_string(ids[i]) +
                        ") is listed twice");
  }
  f.leaves = static_cast<int64_t>(cnt) - m;
  f.feature.resize(static_cast<size_t>(m));
  f.split.resize(static_cast<size_t>(m));
  f.mode.resize(static_cast<size_t>(m));
  f.nan_true.resize(static_cast<size_t>(m));
  f.members.resize(static_cast<size_t>(m));
  f.tchild.resize(cnt);
  f.fchild.resize(cnt);
  f.votes.resize(static_cast<size_t>(f.leaves));
  std::map<int64_t, int64_t> roots;  // tree id -> first position
  for (size_t i = 0; i < cnt; ++i) {
    const int64_t p = where[i];
    roots.emplace(trees[i], p);
    if (md[i] == kLeaf) {
      f.tchild[p] = f.fchild[p] = p;
      continue;
    }
    f.feature[p] = feat[i];
    f.split[p] = vals[i];
    f.mode[p] = md[i];
    f.nan_true[p] = mv[i] != 0;
    auto t = o.pos.find({trees[i], tn[i]}), e = o.pos.find({trees[i], fn[i]});
    if (t == o.pos.end() || e == o.pos.end())
      return cx.invalid(n.op_type + ": node (" + std::to_string(trees[i]) + ", " + std::to_string(ids[i]) +
                        ") has a child that is not listed");
    f.tchild[p] = t->second;
    f.fchild[p] = e->second;
  }
  for (auto [tree, p] : roots) f.roots.push_back(p);
  return o;
}

// Adds the votes (tree ids, node ids, target ids, weights) to the leaves they name.
Status old_votes(LowerCtx& cx, const OnnxNode& n, OldNodes& o, const char* prefix, int64_t k) {
  const std::string p = prefix;
  Ints trees = attr_ints(n, (p + "_treeids").c_str()), ids = attr_ints(n, (p + "_nodeids").c_str());
  Ints tg = attr_ints(n, (p + "_ids").c_str());
  PLUMB_ASSIGN_OR_RETURN(Doubles w, floats_or_tensor(n, p + "_weights"));
  if (ids.size() != trees.size() || tg.size() != trees.size() || w.size() != trees.size())
    return cx.invalid(n.op_type + ": the " + p + "_* attributes differ in length");
  const int64_t m = o.f.m();
  for (size_t i = 0; i < trees.size(); ++i) {
    auto it = o.pos.find({trees[i], ids[i]});
    if (it == o.pos.end())
      return cx.invalid(n.op_type + ": a vote names node (" + std::to_string(trees[i]) + ", " +
                        std::to_string(ids[i]) + "), which is not listed");
    PLUMB_RETURN_IF_ERROR(check_target(cx, tg[i], k, "target/class id"));
    if (it->second >= m)
      o.f.votes[it->second - m].push_back({tg[i], w[i]});  // votes on interior nodes never count
  }
  return Status::ok();
}

// Base values [K] added to f64 y [N, K] (none: unchanged).
Expected<ValueId> add_base(LowerCtx& cx, const OnnxNode& n, ValueId y, int64_t k) {
  PLUMB_ASSIGN_OR_RETURN(Doubles base, floats_or_tensor(n, "base_values"));
  if (base.empty()) return y;
  if (static_cast<int64_t>(base.size()) != k)
    return cx.invalid(n.op_type + ": " + std::to_string(base.size()) + " base values for " +
                      std::to_string(k) + " outputs");
  return bin(cx, BK::Add, y, spread(cx, f64_const(cx, {k}, base), shape_value(cx, y), {1}));
}

// TreeEnsembleRegressor-1/3: aggregate, then base_values, then the post transform; f32 result.
Status lower_tree_regressor(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x0, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x0));
  PLUMB_ASSIGN_OR_RETURN(OldNodes o, old_nodes(cx, n));
  PLUMB_ASSIGN_OR_RETURN(int64_t k, n.attr_int("n_targets", 1));
  PLUMB_RETURN_IF_ERROR(old_votes(cx, n, o, "target", k));
  PLUMB_ASSIGN_OR_RETURN(std::string agg_s, n.attr_string("aggregate_function", "SUM"));
  static const std::map<std::string, Agg> kAgg = {
      {"SUM", Agg::kSum}, {"AVERAGE", Agg::kAverage}, {"MIN", Agg::kMin}, {"MAX", Agg::kMax}};
  auto agg = kAgg.find(agg_s);
  if (agg == kAgg.end()) return cx.invalid("TreeEnsembleRegressor: aggregate_function '" + agg_s + "'");
  PLUMB_ASSIGN_OR_RETURN(Post post, post_attr(cx, n));
  const DType dt = cx.type(x2).dtype;
  ValueId x = to_f64(cx, x2);
  PLUMB_ASSIGN_OR_RETURN(ValueId leaf, forest_leaves(cx, o.f, x));
  ValueId y = forest_aggregate(cx, o.f, leaf, k, agg->second, dtype_max(dt == kF64 ? kF64 : DType::F32), x);
  PLUMB_ASSIGN_OR_RETURN(y, add_base(cx, n, y, k));
  cx.set_output(n, 0, from_f64(cx, post_transform(cx, y, post), DType::F32));
  return cx.error();
}

// TreeEnsembleClassifier-1/3 (ONNX reference): scores = base_values + summed class votes. When
// every vote names one class and there are at most two labels, the scores become the two
// columns [1 - s, s] (post transform NONE or PROBIT) or [-s, s] (others). Then the post
// transform, and the label at argmax (one label [1]: index 1 gives 1, index 0 gives 0).
Status lower_tree_classifier(LowerCtx& cx, const OnnxNode& n) {
  PLUMB_ASSIGN_OR_RETURN(ValueId x0, cx.input(n, 0));
  PLUMB_RETURN_IF_ERROR(cx.error());
  PLUMB_ASSIGN_OR_RETURN(ValueId x2, as_2d(cx, n, x0));
  Ints ints = attr_ints(n, "classlabels_int64s");
  Strings strs = attr_strings(n, "classlabels_strings");
  if (ints.empty() == strs.empty())
    return cx.invalid("TreeEnsembleClassifier needs exactly one of classlabels_int64s, classlabels_strings");
  const int64_t k = static_cast<int64_t>(std::max(ints.size(), strs.size()));
  PLUMB_ASSIGN_OR_RETURN(OldNodes o, old_nodes(cx, n));
  PLUMB_RETURN_IF_ERROR(old_votes(cx, n, o, "class", k));
  PLUMB_ASSIGN_OR_RETURN(Post post, post_attr(cx, n));
  const Ints class_ids = attr_ints(n, "class_ids");
  const std::set<int64_t> classes(class_ids.begin(), class_ids.end());
  // Integer features are compared as f32 values (the reference casts X to float32).
  ValueId x = cx.type(x2).dtype == kF64 ? x2 : to_f64(cx, cx.b.cast(x2, DType::F32));
  PLUMB_ASSIGN_OR_RETURN(ValueId leaf, forest_leaves(cx, o.f, x));
  ValueId s = forest_aggregate(cx, o.f, leaf, k, Agg::kSum, 0.0, x);
  PLUMB_ASSIGN_OR_RETURN(s, add_base(cx, n, s, k));
  if (classes.size() == 1 && k <= 2) {
    // The score of the voted column (column 0 when k == 1: the reference copies column 0).
    ValueId col =
        k == 1 ? cx.b.reduce(RK::Sum, s, {1})
               : cx.b.reduce(RK::Sum, cx.b.gather(ir::GatherKind::Axis, s, i64_const(cx, {1}, {0}), 1), {1});
    ValueId other = post == Post::kNone || post == Post::kProbit ? bin(cx, BK::Sub, splat(cx, 1.0, col), col)
                                                                 : cx.b.unary(UK::Neg, col);
    ValueId two = rows_by(cx, x2, 1);
    s = cx.b.concat({cx.b.reshape(other, two), cx.b.reshape(col, two)}, 1);
  }
  s = post_transform(cx, s, post);
  ValueId label;
  if (strs.size() == 1) return cx.unsupported("TreeEnsembleClassifier with one string class label");
  if (ints.size() == 1) {
    if (ints[0] != 1) return cx.unsupported("TreeEnsembleClassifier with one class label other than 1");
    label = arg_reduce(cx, ir::ArgKind::Max, s, 1, false);  // index 1 -> label 1, index 0 -> 0
  } else {
    label = label_at_argmax(cx, s, ints, strs);
  }
  cx.set_output(n, 0, label);
  if (cx.wants_output(n, 1)) cx.set_output(n, 1, from_f64(cx, s, DType::F32));
  return cx.error();
}

}  // namespace

void register_trees(Registry& r) {
  r.add_in(kMl, "TreeEnsemble", {5, kLatestMlOpset}, lower_tree_ensemble);
  // Deprecated at ai.onnx.ml 5 (TreeEnsemble replaces them): opsets 1..4.
  r.add_in(kMl, "TreeEnsembleClassifier", {1, 4}, lower_tree_classifier);
  r.add_in(kMl, "TreeEnsembleRegressor", {1, 4}, lower_tree_regressor);
}

}  // namespace plumb::lower::ml
