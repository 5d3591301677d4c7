package dev.sharding.baseline;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The sample's HTTP contract for deposits and balances: {@code POST /accounts/{id}/deposit} with
 * {@code {"amount": N}} answers the new balance (once per {@code Idempotency-Key} when one is given), {@code GET
 * /accounts/{id}} the balance (0 for an account never seen), both as {@code {"id", "balance", "node"}}. An invalid id
 * or body is a 400 problem document, a key reused for another amount 422, a database failure 503.
 */
@RestController
@RequestMapping("/accounts")
class AccountApi {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,200}");

    private static final Pattern KEY = Pattern.compile("[\\x21-\\x7E]{1,255}");

    private final Accounts accounts;

    private final String node;

    AccountApi(Accounts accounts, @Value("${baseline.node-name:${spring.application.name}}") String node) {
        this.accounts = accounts;
        this.node = node;
    }

    @PostMapping("/{id}/deposit")
    Balance deposit(
            @PathVariable String id,
            @RequestBody DepositRequest body,
            @RequestHeader(name = "Idempotency-Key", required = false) @Nullable String key) {
        checkId(id);
        Long amount = body.amount();
        if (amount == null || amount <= 0) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "The field \"amount\" must be a positive number");
        }
        if (key == null) {
            return new Balance(id, accounts.deposit(id, amount), node);
        }
        if (!KEY.matcher(key).matches()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "Invalid Idempotency-Key");
        }
        return new Balance(id, accounts.deposit(id, amount, key), node);
    }

    @GetMapping("/{id}")
    Balance balance(@PathVariable String id) {
        checkId(id);
        return new Balance(id, accounts.balance(id), node);
    }

    private static void checkId(String id) {
        if (!ID.matcher(id).matches()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "Invalid account id");
        }
    }

    @ExceptionHandler(Accounts.KeyReusedException.class)
    ResponseEntity<ProblemDetail> keyReused(Accounts.KeyReusedException e) {
        return ResponseEntity.status(HttpStatus.UNPROCESSABLE_CONTENT)
                .body(ProblemDetail.forStatusAndDetail(HttpStatus.UNPROCESSABLE_CONTENT, e.getMessage()));
    }

    @ExceptionHandler(DataAccessException.class)
    ResponseEntity<ProblemDetail> unavailable(DataAccessException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, "1")
                .body(ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, "Database: " + e.getMessage()));
    }
}
