package dev.agentbox.api;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a resource (class or method) that only the admin tenant may call. Enforced by {@link
 * AdminAuthorizationFilter} after matching, so it holds for every spelling of the path that reaches
 * the resource.
 */
@NameBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface AdminOnly {}
