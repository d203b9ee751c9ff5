// Our driver over ARX's public API (not ARX code): which records of a table ARX suppresses under one privacy
// model, at one fixed transformation. Used by tests/benchmarks/bench_models_vs_arx.py.
//
// java ArxModels data=FILE qis=a,b sensitive=s model=NAME [p1=..] [p2=..] [shier=FILE] [hier=DIR levels=a:1,b:0]
//      [subset=ROWS_FILE] [population=N] supp=1.0
// k-map-poisson / k-map-zero-truncated-poisson: k-map with ARX's estimator, p1 = k, p2 = significance level,
// population = the population's size. pu-dankar / pu-pitman / pu-zayatz / pu-snb: population uniqueness with that
// estimator, p1 = threshold, population = the population's size.
// Without hier, every quasi-identifier gets a hierarchy value -> '*' and stays at level 0 (the table is judged as
// published). Prints one JSON line: {"anonymous": bool, "outliers": n, "rows": n, "suppressed_in_input": n}: the
// outliers among the rows the input does not hold fully suppressed ('*' in every quasi-identifier).
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.*;

import org.deidentifier.arx.*;
import org.deidentifier.arx.AttributeType.Hierarchy;
import org.deidentifier.arx.AttributeType.Hierarchy.DefaultHierarchy;
import org.deidentifier.arx.criteria.*;
import org.deidentifier.arx.risk.RiskModelPopulationUniqueness.PopulationUniquenessModel;

public class ArxModels {
    // models that judge class sizes or a population only: ARX refuses a sensitive attribute no model covers
    static final Set<String> SIZE_MODELS = new HashSet<>(Arrays.asList("k-anonymity", "average-risk",
            "sample-uniqueness", "k-map", "delta-presence", "k-map-poisson", "k-map-zero-truncated-poisson",
            "pu-dankar", "pu-pitman", "pu-zayatz", "pu-snb"));

    public static void main(String[] argv) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String s : argv) { int i = s.indexOf('='); a.put(s.substring(0, i), s.substring(i + 1)); }
        Data data = Data.create(new File(a.get("data")), StandardCharsets.UTF_8, ';');
        DataHandle handle = data.getHandle();
        List<String> qis = Arrays.asList(a.get("qis").split(","));
        String sens = a.get("sensitive");
        Map<String, Integer> levels = new HashMap<>();
        if (a.containsKey("levels")) for (String p : a.get("levels").split(",")) {
            String[] kv = p.split(":"); levels.put(kv[0], Integer.parseInt(kv[1]));
        }
        for (int c = 0; c < handle.getNumColumns(); c++) {
            String col = handle.getAttributeName(c);
            if (qis.contains(col)) {
                if (a.containsKey("hier")) {
                    Hierarchy h = Hierarchy.create(new File(a.get("hier"), "adult_hierarchy_" + col + ".csv"),
                                                   StandardCharsets.UTF_8, ';');
                    data.getDefinition().setAttributeType(col, h);
                    int level = levels.getOrDefault(col, 0);
                    data.getDefinition().setMinimumGeneralization(col, level);
                    data.getDefinition().setMaximumGeneralization(col, level);
                } else {
                    DefaultHierarchy h = Hierarchy.create();
                    Set<String> seen = new HashSet<>();
                    for (int r = 0; r < handle.getNumRows(); r++) {
                        String v = handle.getValue(r, c);
                        if (seen.add(v)) h.add(v, "*");
                    }
                    data.getDefinition().setAttributeType(col, h);
                    data.getDefinition().setMinimumGeneralization(col, 0);
                    data.getDefinition().setMaximumGeneralization(col, 0);
                }
            } else if (col.equals(sens) && !SIZE_MODELS.contains(a.get("model"))) {
                data.getDefinition().setAttributeType(col, AttributeType.SENSITIVE_ATTRIBUTE);
            } else {
                data.getDefinition().setAttributeType(col, AttributeType.INSENSITIVE_ATTRIBUTE);
            }
        }
        DataSubset subset = null;
        if (a.containsKey("subset")) {
            Set<Integer> rows = new HashSet<>();
            for (String line : Files.readAllLines(new File(a.get("subset")).toPath())) {
                if (!line.isBlank()) rows.add(Integer.parseInt(line.trim()));
            }
            subset = DataSubset.create(data, rows);
        }
        double p1 = Double.parseDouble(a.getOrDefault("p1", "0"));
        double p2 = Double.parseDouble(a.getOrDefault("p2", "0"));
        ARXConfiguration config = ARXConfiguration.create();
        String model = a.get("model");
        switch (model) {
            case "recursive-cl-diversity": config.addPrivacyModel(new RecursiveCLDiversity(sens, p1, (int) p2)); break;
            case "t-equal": config.addPrivacyModel(new EqualDistanceTCloseness(sens, p1)); break;
            case "t-ordered": config.addPrivacyModel(new OrderedDistanceTCloseness(sens, p1)); break;
            case "t-hierarchical":
                config.addPrivacyModel(new HierarchicalDistanceTCloseness(sens, p1,
                        Hierarchy.create(new File(a.get("shier")), StandardCharsets.UTF_8, ';')));
                break;
            case "delta-disclosure": config.addPrivacyModel(new DDisclosurePrivacy(sens, p1)); break;
            case "beta-basic": config.addPrivacyModel(new BasicBLikeness(sens, p1)); break;
            case "beta-enhanced": config.addPrivacyModel(new EnhancedBLikeness(sens, p1)); break;
            case "k-anonymity": config.addPrivacyModel(new KAnonymity((int) p1)); break;
            case "average-risk": config.addPrivacyModel(new AverageReidentificationRisk(p1)); break;
            case "sample-uniqueness": config.addPrivacyModel(new SampleUniqueness(p1)); break;
            case "k-map": config.addPrivacyModel(new KMap((int) p1, subset)); break;
            case "delta-presence": config.addPrivacyModel(new DPresence(p1, p2, subset)); break;
            case "k-map-poisson":
            case "k-map-zero-truncated-poisson":
                KMap kmap = new KMap((int) p1, p2, ARXPopulationModel.create(Long.parseLong(a.get("population"))),
                        model.endsWith("-poisson") && !model.contains("zero")
                                ? KMap.CellSizeEstimator.POISSON : KMap.CellSizeEstimator.ZERO_TRUNCATED_POISSON);
                config.addPrivacyModel(kmap);
                break;
            case "pu-dankar":
            case "pu-pitman":
            case "pu-zayatz":
            case "pu-snb":
                config.addPrivacyModel(new PopulationUniqueness(p1,
                        PopulationUniquenessModel.valueOf(model.substring(3).toUpperCase()),
                        ARXPopulationModel.create(Long.parseLong(a.get("population")))));
                break;
            default: throw new IllegalArgumentException("unknown model " + model);
        }
        config.setSuppressionLimit(Double.parseDouble(a.getOrDefault("supp", "1.0")));
        ARXResult result = new ARXAnonymizer().anonymize(data, config);
        ARXLattice.ARXNode opt = result.getGlobalOptimum();
        // rows the release itself published fully suppressed ('*' in every quasi-identifier): ARX reports them as
        // outliers whatever the model says (isOutlier reads the '*' cells); our verifier exempts them from the size
        // models, so they are counted apart
        int[] qiColumns = qis.stream().mapToInt(handle::getColumnIndexOf).toArray();
        int outliers = 0, rows = 0, published = 0;
        if (opt != null) {
            DataHandle out = result.getOutput(opt, false);
            for (int r = 0; r < out.getNumRows(); r++) {
                if (subset != null && !subset.getSet().contains(r)) continue;
                rows++;
                boolean starred = true;
                for (int c : qiColumns) starred &= "*".equals(handle.getValue(r, c));
                if (starred) { published++; continue; }
                if (out.isOutlier(r)) outliers++;
            }
        }
        String derived = "";
        for (PrivacyCriterion c : result.getConfiguration().getPrivacyModels()) {
            if (c instanceof KMap && ((KMap) c).getEstimator() != null) derived = ", \"derived_k\": " + ((KMap) c).getDerivedK();
        }
        System.out.println("{\"anonymous\": " + (opt != null) + ", \"outliers\": " + outliers + ", \"rows\": " + rows + ", \"suppressed_in_input\": " + published + derived + "}");
    }
}
