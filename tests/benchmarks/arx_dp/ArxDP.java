import java.io.File;
import java.io.FileWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.deidentifier.arx.ARXAnonymizer;
import org.deidentifier.arx.ARXConfiguration;
import org.deidentifier.arx.ARXResult;
import org.deidentifier.arx.AttributeType;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.criteria.EDDifferentialPrivacy;
import org.deidentifier.arx.metric.Metric;

/**
 * anonstudio's benchmark driver for ARX's (epsilon, delta)-differential privacy (SafePub), ARX public API only.
 *
 * usage: java -cp arx-engine.jar:lib/* ArxDP data=adult.csv hier=DIR qis=a,b,c eps=1 delta=1e-5
 *        [budget=0.1 (epsilon spent on the search)] [steps=100] [metric=loss|dm] out=out.csv json=stats.json
 * Columns that are not quasi-identifiers are identifying (left out), as in anonstudio's runs.
 */
public class ArxDP {
    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String s : args) {
            int i = s.indexOf('=');
            a.put(s.substring(0, i), s.substring(i + 1));
        }
        List<String> qis = Arrays.asList(a.get("qis").split(","));
        double eps = Double.parseDouble(a.get("eps"));
        double delta = Double.parseDouble(a.get("delta"));
        double budget = Double.parseDouble(a.getOrDefault("budget", "0.1"));
        int steps = Integer.parseInt(a.getOrDefault("steps", "100"));
        String metric = a.getOrDefault("metric", "loss");

        Data data = Data.create(new File(a.get("data")), StandardCharsets.UTF_8, ';');
        DataHandle in = data.getHandle();
        List<String> cols = new ArrayList<>();
        for (int c = 0; c < in.getNumColumns(); c++) cols.add(in.getAttributeName(c));
        for (String col : cols) {
            if (qis.contains(col)) {
                data.getDefinition().setAttributeType(col, Hierarchy.create(
                        new File(a.get("hier"), "adult_hierarchy_" + col + ".csv"), StandardCharsets.UTF_8, ';'));
            } else {
                data.getDefinition().setAttributeType(col, AttributeType.IDENTIFYING_ATTRIBUTE);
            }
        }
        ARXConfiguration config = ARXConfiguration.create();
        config.addPrivacyModel(new EDDifferentialPrivacy(eps, delta));
        config.setDPSearchBudget(budget);
        config.setHeuristicSearchStepLimit(steps, ARXConfiguration.SearchStepSemantics.EXPANSIONS);
        config.setSuppressionLimit(1d);
        config.setQualityModel(metric.equals("dm") ? Metric.createDiscernabilityMetric(false)
                                                   : Metric.createLossMetric());
        long t0 = System.nanoTime();
        ARXResult result = new ARXAnonymizer().anonymize(data, config);
        long t1 = System.nanoTime();
        Map<String, Object> js = new HashMap<>();
        js.put("result_available", result.isResultAvailable());
        js.put("anonymize_ms", (t1 - t0) / 1e6);
        EDDifferentialPrivacy used = result.getConfiguration().getPrivacyModel(EDDifferentialPrivacy.class);
        js.put("k", used.getK());
        js.put("beta", used.getBeta());
        if (result.isResultAvailable()) {
            DataHandle out = result.getOutput(false);
            int outliers = 0;
            for (int r = 0; r < out.getNumRows(); r++) if (out.isOutlier(r)) outliers++;
            js.put("rows", out.getNumRows());
            js.put("suppressed", outliers);
            js.put("transformation_qis", result.getGlobalOptimum().getQuasiIdentifyingAttributes());
            js.put("transformation", result.getGlobalOptimum().getTransformation());
            out.save(new File(a.get("out")), ';');
        }
        try (FileWriter w = new FileWriter(a.get("json"), StandardCharsets.UTF_8)) {
            w.write(json(js));
        }
    }

    private static String json(Object o) {
        if (o instanceof Map) {
            StringBuilder b = new StringBuilder("{");
            for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
                if (b.length() > 1) b.append(',');
                b.append('"').append(e.getKey()).append("\":").append(json(e.getValue()));
            }
            return b.append('}').toString();
        }
        if (o instanceof String[]) return json(Arrays.asList((String[]) o));
        if (o instanceof int[]) {
            StringBuilder b = new StringBuilder("[");
            for (int v : (int[]) o) b.append(b.length() > 1 ? "," : "").append(v);
            return b.append(']').toString();
        }
        if (o instanceof List) {
            StringBuilder b = new StringBuilder("[");
            for (Object v : (List<?>) o) b.append(b.length() > 1 ? "," : "").append(json(v));
            return b.append(']').toString();
        }
        if (o instanceof String) return "\"" + o + "\"";
        if (o instanceof Double) return String.format(Locale.ROOT, "%.17g", (Double) o);
        return String.valueOf(o);
    }
}
