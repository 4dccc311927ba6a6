package dev.rpcrdma.samples.echo;

/**
 * A problem the user can fix, with a one-line message that says what to do. Printed without a stack trace
 * unless {@code --verbose} is given (then the cause's trace is printed too).
 */
final class UserError extends RuntimeException {

    private static final long serialVersionUID = 1L;

    UserError(String message) {
        super(message);
    }

    UserError(String message, Throwable cause) {
        super(message, cause);
    }
}
