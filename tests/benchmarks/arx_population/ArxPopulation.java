// Our driver over ARX's public API (not ARX code): ARX anonymizing a research subset of a table under k-map or
// δ-presence against the whole table as the population, plus k-anonymity. Used by
// tests/benchmarks/bench_population_models.py.
//
// java ArxPopulation data=FILE hier=DIR qis=a,b subset=ROWS_FILE model=k-map|delta-presence p1=.. [p2=..] k=2
//      supp=0.1 mode=global|local [iters=100] out=FILE json=FILE
// data: the population (';'-separated, the first line the column names); subset: the sample's row numbers in it
// (0-based, one a line); hier: ARX's hierarchy files adult_hierarchy_<attribute>.csv. k-map: KMap(p1, subset) (the
// population table mode, no estimator); delta-presence: DPresence(p1, p2, subset). Every column not a
// quasi-identifier is insensitive.
// mode=global: ARX's default lattice search with its default quality model, suppression limit supp.
// mode=local: as ARX's GUI "local transformation" (and tests/benchmarks/bench_vs_arx.py's run-arx): Loss with
// gsFactor 0, suppression limit 1 - 1/iters, then optimizeIterativeFast(output, 1/iters); refused (local_note)
// when a model says ARX cannot recode it locally.
// out: the published research subset (ARX's view of the output), suppressed records '*' in every QI.
// Prints (and writes to json) one JSON line: result_available, transformation ("attribute:level,..."), anonymize_ms, local_ms, core_ms,
// suppressed (records of the subset ARX suppressed), rows, local_supported, local_note.
import java.io.File;
import java.io.FileWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.*;

import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.criteria.*;
import org.deidentifier.arx.exceptions.RollbackRequiredException;
import org.deidentifier.arx.metric.Metric;

public class ArxPopulation {
    public static void main(String[] argv) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String s : argv) { int i = s.indexOf('='); a.put(s.substring(0, i), s.substring(i + 1)); }
        Data data = Data.create(new File(a.get("data")), StandardCharsets.UTF_8, ';');
        DataHandle input = data.getHandle();
        List<String> qis = Arrays.asList(a.get("qis").split(","));
        for (int c = 0; c < input.getNumColumns(); c++) {
            String col = input.getAttributeName(c);
            if (qis.contains(col)) {
                data.getDefinition().setAttributeType(col, Hierarchy.create(
                        new File(a.get("hier"), "adult_hierarchy_" + col + ".csv"), StandardCharsets.UTF_8, ';'));
            } else {
                data.getDefinition().setAttributeType(col, AttributeType.INSENSITIVE_ATTRIBUTE);
            }
        }
        Set<Integer> rows = new HashSet<>();
        for (String line : Files.readAllLines(new File(a.get("subset")).toPath())) {
            if (!line.isBlank()) rows.add(Integer.parseInt(line.trim()));
        }
        DataSubset subset = DataSubset.create(data, rows);

        ARXConfiguration config = ARXConfiguration.create();
        double p1 = Double.parseDouble(a.get("p1"));
        double p2 = Double.parseDouble(a.getOrDefault("p2", "0"));
        String model = a.get("model");
        PrivacyCriterion criterion;
        if (model.equals("k-map")) criterion = new KMap((int) p1, subset);
        else if (model.equals("delta-presence")) criterion = new DPresence(p1, p2, subset);
        else throw new IllegalArgumentException("unknown model " + model);
        config.addPrivacyModel(criterion);
        config.addPrivacyModel(new KAnonymity(Integer.parseInt(a.getOrDefault("k", "2"))));
        boolean local = a.getOrDefault("mode", "global").equals("local");
        int iters = Integer.parseInt(a.getOrDefault("iters", "100"));
        List<String> noLocal = new ArrayList<>();  // the models ARX says it cannot recode locally
        for (PrivacyCriterion c : config.getPrivacyModels()) {
            if (!c.isLocalRecodingSupported()) noLocal.add(c.getClass().getSimpleName());
        }
        boolean localSupported = noLocal.isEmpty();
        if (local) {
            config.setQualityModel(Metric.createLossMetric(0d));
            config.setSuppressionLimit(1d - 1d / iters);
        } else {
            config.setSuppressionLimit(Double.parseDouble(a.getOrDefault("supp", "0.1")));  // quality: ARX's default
        }

        Map<String, Object> js = new LinkedHashMap<>();
        js.put("local_supported", localSupported);
        String note = "";
        if (local && !localSupported) {
            note = "ARX does not recode " + String.join(", ", noLocal) + " locally (isLocalRecodingSupported)";
            js.put("result_available", false);
            js.put("local_note", note);
            emit(js, a.get("json"));
            return;
        }
        long t0 = System.nanoTime();
        ARXResult result = new ARXAnonymizer().anonymize(data, config);
        long t1 = System.nanoTime();
        js.put("result_available", result.isResultAvailable());
        long t2 = t1;
        if (result.isResultAvailable()) {
            DataHandle out = result.getOutput(false);
            String[] names = result.getGlobalOptimum().getQuasiIdentifyingAttributes();
            int[] levels = result.getGlobalOptimum().getTransformation();
            StringBuilder t = new StringBuilder();
            for (int i = 0; i < names.length; i++) t.append(i > 0 ? "," : "").append(names[i]).append(':').append(levels[i]);
            js.put("transformation", t.toString());  // "attribute:level,..." of the lattice node ARX chose
            if (local) {
                try {
                    result.optimizeIterativeFast(out, 1d / iters);
                } catch (RollbackRequiredException e) {
                    note = "RollbackRequiredException: " + e.getMessage();
                    out = result.getOutput();
                }
            }
            t2 = System.nanoTime();
            DataHandle view = out.getView();
            int suppressed = 0;
            for (int r = 0; r < view.getNumRows(); r++) if (view.isOutlier(r)) suppressed++;
            js.put("suppressed", suppressed);
            js.put("rows", view.getNumRows());
            view.save(new File(a.get("out")), ';');
        }
        js.put("anonymize_ms", (t1 - t0) / 1e6);
        js.put("local_ms", (t2 - t1) / 1e6);
        js.put("core_ms", (t2 - t0) / 1e6);
        js.put("local_note", note);
        emit(js, a.get("json"));
    }

    static void emit(Map<String, Object> js, String path) throws Exception {
        StringBuilder sb = new StringBuilder("{");
        for (Map.Entry<String, Object> e : js.entrySet()) {
            if (sb.length() > 1) sb.append(", ");
            Object v = e.getValue();
            String text = v instanceof String ? "\"" + ((String) v).replace("\"", "'") + "\"" : String.valueOf(v);
            sb.append('"').append(e.getKey()).append("\": ").append(text);
        }
        String line = sb.append('}').toString();
        try (FileWriter w = new FileWriter(path)) { w.write(line); }
        System.out.println(line);
    }
}
