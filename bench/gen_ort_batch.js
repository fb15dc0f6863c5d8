// Runs many ONNX models on onnxruntime-node in one process (bench/gen_campaign.py): node's start-up
// is most of the time of a small model. Each job has its own inputs; the run is
// tests/models/ort_outputs.js's (CPU, one thread, graph optimizations off, so every node is
// evaluated as written, in its own dtype).
//
//   NODE_PATH=.../node_modules node gen_ort_batch.js JOBS.json
//
// JOBS.json: [{"model", "out" (a folder), "inputs": [{"name", "type", "dims", "file"}]}]; each job
// writes OUT/outputs.json: [{"name", "type", "dims", "file"}] in the model's output order, or
// {"error": message} when onnxruntime refuses or fails the model.
const fs = require('fs');
const path = require('path');
const {readFeeds, run} = require('../tests/models/ort_outputs.js');

(async () => {
  for (const job of JSON.parse(fs.readFileSync(process.argv[2], 'utf8'))) {
    try {
      await run(job.model, job.out, readFeeds(job.inputs));
    } catch (e) {
      fs.writeFileSync(path.join(job.out, 'outputs.json'), JSON.stringify({error: e.message}));
    }
  }
})().catch((e) => { console.error(e.message); process.exit(1); });
