import java.io.BufferedReader;
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import org.deidentifier.arx.ARXPopulationModel;
import org.deidentifier.arx.ARXSolverConfiguration;
import org.deidentifier.arx.Data;
import org.deidentifier.arx.DataHandle;
import org.deidentifier.arx.risk.RiskEstimateBuilder;
import org.deidentifier.arx.risk.RiskModelPopulationUniqueness;
import org.deidentifier.arx.risk.RiskModelSampleRiskDistribution;
import org.deidentifier.arx.risk.RiskModelSampleRisks;
import org.deidentifier.arx.risk.RiskModelSampleSummary;
import org.deidentifier.arx.risk.RiskModelSampleUniqueness;

/**
 * anonstudio's cross-check driver: ARX's re-identification risk figures for one table, as JSON on stdout.
 * Uses ARX's public risk API only (DataHandle.getRiskEstimator and the models it returns).
 *
 *   java -cp arx-engine.jar:lib/* ArxRisk data=FILE qis=a,b,c [delimiter=;] [threshold=0.2]
 *        [population=N | fraction=F]   (neither: ARX's default population model, Region.USA; with a fraction
 *                                       the sample size is every row of the file, suppressed ones included)
 *        [accuracy=1e-6]               (ARX's solver accuracy; its default is 1e-6)
 *        [drop_suppressed=1]           (leave out records whose every QI cell is '*', as ARX leaves out the
 *                                       suppressed records of its own outputs)
 */
public class ArxRisk {

    public static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String s : args) {
            int i = s.indexOf('=');
            a.put(s.substring(0, i), s.substring(i + 1));
        }
        String path = a.get("data");
        char delimiter = a.getOrDefault("delimiter", ";").charAt(0);
        List<String> qis = Arrays.asList(a.get("qis").split(","));
        double threshold = Double.parseDouble(a.getOrDefault("threshold", "0.2"));
        boolean dropSuppressed = a.getOrDefault("drop_suppressed", "0").equals("1");

        // read the table ourselves (plain split, no quoting: the benchmark's tables have none) so that the
        // suppressed rows can be left out; ARX then gets it as an in-memory table
        List<String[]> rows = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(new FileInputStream(new File(path)),
                                                                          StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isEmpty()) continue;
                rows.add(line.split(java.util.regex.Pattern.quote(String.valueOf(delimiter)), -1));
            }
        }
        String[] header = rows.get(0);
        int[] qiIndex = new int[qis.size()];
        for (int q = 0; q < qis.size(); q++) {
            qiIndex[q] = Arrays.asList(header).indexOf(qis.get(q));
            if (qiIndex[q] < 0) throw new IllegalArgumentException("no column " + qis.get(q));
        }
        Data.DefaultData data = Data.create();
        data.add(header);
        int dropped = 0;
        for (int r = 1; r < rows.size(); r++) {
            String[] row = rows.get(r);
            boolean suppressed = true;
            for (int q : qiIndex) suppressed &= row[q].equals("*");
            if (dropSuppressed && suppressed) { dropped++; continue; }
            data.add(row);
        }

        ARXPopulationModel population;
        if (a.containsKey("population")) {
            population = ARXPopulationModel.create(Long.parseLong(a.get("population")));
        } else if (a.containsKey("fraction")) {
            population = ARXPopulationModel.create(rows.size() - 1, Double.parseDouble(a.get("fraction")));
        } else {
            population = ARXPopulationModel.create(ARXPopulationModel.Region.USA);
        }
        ARXSolverConfiguration solver = ARXSolverConfiguration.create();
        if (a.containsKey("accuracy")) solver.accuracy(Double.parseDouble(a.get("accuracy")));

        DataHandle handle = data.getHandle();
        Set<String> qiSet = new LinkedHashSet<>(qis);
        long t0 = System.nanoTime();
        RiskEstimateBuilder builder = handle.getRiskEstimator(population, qiSet, solver);

        Map<String, Object> js = new LinkedHashMap<>();
        js.put("records", handle.getNumRows());
        js.put("dropped_suppressed", dropped);
        js.put("population_size", population.getPopulationSize());
        js.put("threshold", threshold);
        js.put("histogram", builder.getEquivalenceClassModel().getHistogram());

        RiskModelSampleRisks sample = builder.getSampleBasedReidentificationRisk();
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("average_risk", sample.getAverageRisk());
        s.put("highest_risk", sample.getHighestRisk());
        s.put("lowest_risk", sample.getLowestRisk());
        s.put("records_affected_by_highest_risk", sample.getFractionOfRecordsAffectedByHighestRisk());
        s.put("records_affected_by_lowest_risk", sample.getFractionOfRecordsAffectedByLowestRisk());
        js.put("sample_risks", s);

        RiskModelSampleUniqueness uniq = builder.getSampleBasedUniquenessRisk();
        js.put("sample_uniques", uniq.getFractionOfUniqueRecords());

        RiskModelSampleSummary summary = builder.getSampleBasedRiskSummary(threshold);
        js.put("prosecutor", summaryOf(summary.getProsecutorRisk()));
        js.put("journalist", summaryOf(summary.getJournalistRisk()));
        js.put("marketer", summary.getMarketerRisk().getSuccessRate());

        RiskModelSampleRiskDistribution dist = builder.getSampleBasedRiskDistribution();
        js.put("distribution_upper", dist.getAvailableUpperRiskThresholds());
        js.put("distribution_records", dist.getFractionOfRecordsForRiskThresholds());
        js.put("distribution_cumulative", dist.getFractionOfRecordsForCumulativeRiskThresholds());

        long t1 = System.nanoTime();
        RiskModelPopulationUniqueness pop = builder.getPopulationBasedUniquenessRisk();
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("pitman", pop.getFractionOfUniqueTuplesPitman());
        p.put("zayatz", pop.getFractionOfUniqueTuplesZayatz());
        p.put("snb", pop.getFractionOfUniqueTuplesSNB());
        p.put("dankar", pop.getFractionOfUniqueTuplesDankar());
        RiskModelPopulationUniqueness.PopulationUniquenessModel m = pop.getPopulationUniquenessModel();
        p.put("dankar_model", m == null ? null : m.name().toLowerCase(Locale.ROOT));
        p.put("pitman_uniques", pop.getNumUniqueTuplesPitman());
        p.put("zayatz_uniques", pop.getNumUniqueTuplesZayatz());
        p.put("snb_uniques", pop.getNumUniqueTuplesSNB());
        p.put("dankar_uniques", pop.getNumUniqueTuplesDankar());
        js.put("population", p);
        long t2 = System.nanoTime();
        js.put("sample_seconds", (t1 - t0) / 1e9);
        js.put("population_seconds", (t2 - t1) / 1e9);
        System.out.println(toJson(js));
    }

    private static Map<String, Object> summaryOf(RiskModelSampleSummary.RiskSummary r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("records_at_risk", r.getRecordsAtRisk());
        m.put("highest_risk", r.getHighestRisk());
        m.put("lowest_risk", r.getLowestRisk());
        m.put("success_rate", r.getSuccessRate());
        return m;
    }

    private static String toJson(Object o) {
        if (o == null) return "null";
        if (o instanceof String) return "\"" + ((String) o).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
        if (o instanceof Double) {
            double d = (Double) o;
            return Double.isNaN(d) || Double.isInfinite(d) ? "null" : Double.toString(d);
        }
        if (o instanceof Number || o instanceof Boolean) return o.toString();
        if (o instanceof int[]) {
            StringBuilder b = new StringBuilder("[");
            for (int v : (int[]) o) b.append(b.length() > 1 ? "," : "").append(v);
            return b.append("]").toString();
        }
        if (o instanceof double[]) {
            List<Object> l = new ArrayList<>();
            for (double v : (double[]) o) l.add(v);
            return toJson(l);
        }
        if (o instanceof List) {
            StringBuilder b = new StringBuilder("[");
            for (Object v : (List<?>) o) b.append(b.length() > 1 ? "," : "").append(toJson(v));
            return b.append("]").toString();
        }
        StringBuilder b = new StringBuilder("{");
        for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) {
            b.append(b.length() > 1 ? "," : "").append(toJson(String.valueOf(e.getKey()))).append(":")
             .append(toJson(e.getValue()));
        }
        return b.append("}").toString();
    }
}
