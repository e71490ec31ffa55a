package dev.agentbox.api;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks resource methods (or classes) whose requests run a command or a file operation in a
 * sandbox: each holds one of the tenant's {@code concurrent-execs} slots while it runs (see {@link
 * ExecQuotaFilter}).
 */
@NameBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface ExecQuota {}
