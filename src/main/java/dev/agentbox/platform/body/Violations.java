package dev.agentbox.platform.body;

import dev.agentbox.problem.ProblemException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ElementKind;
import jakarta.validation.Path;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Set;

/**
 * The one translation of Bean Validation's violations into the wire's {@code 400 invalid-request}:
 * the detail is {@code "<field> <message>"} and the {@code field} member names the member as a
 * client spells it — {@code env.A} for a map's value, {@code env} for one of its keys, {@code
 * ports[2]} for a list's element, {@code policy.memoryMb} for a nested record's component.
 *
 * <p>A body with several violations is answered with one, the same one every time: the first by the
 * order of the record's components (as a hand reading from top to bottom would have found it), then
 * by field, then by message.
 */
public final class Violations {

    private Violations() {}

    /** The problem for {@code violations}, which must not be empty. */
    public static ProblemException problem(Set<? extends ConstraintViolation<?>> violations) {
        ConstraintViolation<?> first =
                violations.stream()
                        .min(
                                Comparator.<ConstraintViolation<?>>comparingInt(Violations::rank)
                                        .thenComparing(v -> field(v.getPropertyPath()))
                                        .thenComparing(ConstraintViolation::getMessage))
                        .orElseThrow();
        return ProblemException.invalidField(field(first.getPropertyPath()), first.getMessage());
    }

    /** The path a client spells: {@code a.b}, {@code a[0]}, {@code a.KEY}; {@code body} if none. */
    static String field(Path path) {
        StringBuilder field = new StringBuilder();
        for (Path.Node node : path) {
            String name = node.getName();
            if (node.isInIterable()) {
                if (node.getIndex() != null) {
                    field.append('[').append(node.getIndex()).append(']');
                } else if (node.getKey() != null && !"<map key>".equals(name)) {
                    field.append('.').append(node.getKey());
                }
            }
            if (node.getKind() == ElementKind.PROPERTY && name != null) {
                if (!field.isEmpty()) {
                    field.append('.');
                }
                field.append(name);
            }
        }
        return field.isEmpty() ? "body" : field.toString();
    }

    /** The index of the violation's top-level member among its record's components. */
    private static int rank(ConstraintViolation<?> v) {
        Class<?> root = v.getRootBeanClass();
        if (!root.isRecord()) {
            return Integer.MAX_VALUE;
        }
        List<String> names =
                Arrays.stream(root.getRecordComponents()).map(RecordComponent::getName).toList();
        for (Path.Node node : v.getPropertyPath()) {
            int i = names.indexOf(node.getName());
            return i < 0 ? Integer.MAX_VALUE : i;
        }
        return Integer.MAX_VALUE;
    }
}
