package dev.rpcrdma.samples.echo;

/**
 * A problem the user can fix, with a one-line message that says what to do. Printed without a stack trace
 * unless {@code --verbose} is given (then the cause's trace is printed too). A {@link #usage(String) usage}
 * error (bad options) exits with code 2, any other with 1.
 */
final class UserError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    final boolean usage;

    UserError(String message) {
        this(message, null, false);
    }

    UserError(String message, Throwable cause) {
        this(message, cause, false);
    }

    private UserError(String message, Throwable cause, boolean usage) {
        super(message, cause);
        this.usage = usage;
    }

    /** Bad usage: options that cannot work together, or a choice the user must make explicitly. */
    static UserError usage(String message) {
        return new UserError(message, null, true);
    }
}
