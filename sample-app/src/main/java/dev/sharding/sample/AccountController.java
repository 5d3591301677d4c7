package dev.sharding.sample;

import dev.sharding.AskTimeoutException;
import dev.sharding.BufferFullException;
import dev.sharding.ClusterPartitionedException;
import dev.sharding.EntityException;
import dev.sharding.EntityUnreachableException;
import dev.sharding.IdempotencyKeyReusedException;
import dev.sharding.MessageRejectedException;
import dev.sharding.ShardRegion;
import dev.sharding.ShardingException;
import dev.sharding.StoreOutcomeUnknownException;
import dev.sharding.StoreUnavailableException;
import dev.sharding.UnhandledMessageException;
import jakarta.servlet.http.HttpServletRequest;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
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
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * The HTTP API of the sample: deposit into an account and read its balance, wherever in the cluster it lives.
 *
 * <ul>
 * <li>{@code POST /accounts/{id}/deposit} with {@code {"amount": N}} answers the new balance. With an
 * {@code Idempotency-Key} header the deposit applies once per key and account: a repeat (after a timeout, a 503, or
 * from another client of the same operation) answers the body of the first, through any node, even after the account
 * moved or its node crashed.</li>
 * <li>{@code GET /accounts/{id}} answers the balance (0 for an account never seen).</li>
 * </ul>
 * Both answer {@code {"id": …, "balance": …, "node": …}}, where {@code node} names the node hosting the account.
 * <ul>
 * <li>{@code GET /accounts/{id}/history} answers {@code {"id": …, "entries": [{"amount": …, "sequenceNr": …,
 * "depositedAt": …}, …]}}, the account's deposits in the order they were made, from the read model that the
 * {@link AccountHistory} projection keeps: eventually consistent, each acknowledged deposit there exactly once within
 * moments (an empty list for an account never seen). 404 on a node whose store is in memory, which keeps no
 * history.</li>
 * </ul>
 * Errors are RFC 9457 problem documents: 400 for an invalid id or body, 422 when the account refuses the deposit,
 * 503 with {@code Retry-After} when the cluster cannot reach the account in time or the database failed to store the
 * deposit (nothing changed; a retry may succeed), or failed to read the history.
 *
 * <p>The controller never blocks a request thread while the account works: it returns the ask's future. A history is
 * read from the database on the request thread, as a plain query.
 */
@RestController
@RequestMapping("/accounts")
public class AccountController {

    /** Valid account ids. */
    static final Pattern ID = Pattern.compile("[A-Za-z0-9._-]{1,200}");

    private static final String INVALID_ID =
            "Invalid account id: it must be 1 to 200 characters of A-Z, a-z, 0-9," + " '.', '_' and '-'";

    private static final Logger log = LoggerFactory.getLogger(AccountController.class);

    /** The header that makes a deposit apply once per key. */
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";

    /** Valid idempotency keys. */
    private static final Pattern KEY = Pattern.compile("[\\x21-\\x7E]{1,255}");

    private final ShardRegion<Account> accounts;

    private final @Nullable AccountHistory history;

    private final ObjectReader json;

    /**
     * Creates the controller.
     *
     * @param accounts the door to the accounts
     * @param history the accounts' history, if this node keeps one (not with a store in memory)
     * @param mapper the application's JSON mapper
     */
    public AccountController(ShardRegion<Account> accounts, ObjectProvider<AccountHistory> history, JsonMapper mapper) {
        this.accounts = accounts;
        this.history = history.getIfAvailable();
        this.json = mapper.reader().with(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
    }

    /**
     * Deposits money into an account.
     *
     * @param id the account id
     * @param contentType the request's content type, if any
     * @param body the request body, {@code {"amount": N}} with N a positive whole number
     * @param request the request; its {@code Idempotency-Key} header, if any, makes the deposit apply once per key
     *     and account
     * @return the new balance
     */
    @PostMapping("/{id}/deposit")
    public CompletableFuture<Balance> deposit(
            @PathVariable String id,
            @RequestHeader(name = HttpHeaders.CONTENT_TYPE, required = false) @Nullable String contentType,
            @RequestBody(required = false) byte @Nullable [] body,
            HttpServletRequest request) {
        checkId(id, request);
        long amount = amountOf(contentType, body);
        // read from the request itself: an empty header is an invalid key, not a missing one
        String idempotencyKey = request.getHeader(IDEMPOTENCY_KEY);
        if (idempotencyKey == null) {
            return accounts.ask(id, new Deposit(amount), Balance.class);
        }
        if (!KEY.matcher(idempotencyKey).matches()) {
            throw new BadRequestException(
                    "Invalid Idempotency-Key: it must be 1 to 255 visible ASCII characters (a UUID, for example)");
        }
        return accounts.ask(id, new Deposit(amount), Balance.class, idempotencyKey);
    }

    /**
     * Reads an account's balance.
     *
     * @param id the account id
     * @param request the request
     * @return the balance
     */
    @GetMapping("/{id}")
    public CompletableFuture<Balance> balance(@PathVariable String id, HttpServletRequest request) {
        checkId(id, request);
        return accounts.ask(id, new GetBalance(), Balance.class);
    }

    /**
     * Reads an account's history: its deposits as the projection has recorded them so far.
     *
     * @param id the account id
     * @param request the request
     * @return the history; no entries for an account never seen
     */
    @GetMapping("/{id}/history")
    public ResponseEntity<?> history(@PathVariable String id, HttpServletRequest request) {
        checkId(id, request);
        AccountHistory h = history;
        if (h == null) {
            return problem(
                    HttpStatus.NOT_FOUND,
                    "No account history",
                    "This node keeps no account history: its store is in memory (sharding.store.type=memory), and the"
                            + " history is a table of the store's database");
        }
        return ResponseEntity.ok(new History(id, h.entries(id)));
    }

    /**
     * A request with an empty account id, {@code GET /accounts/}, {@code POST /accounts//deposit} or
     * {@code GET /accounts//history}: 400.
     *
     * @return never
     */
    @RequestMapping({"/", "//deposit", "//history"})
    public Balance emptyId() {
        throw new BadRequestException(INVALID_ID + "; it is empty");
    }

    private static void checkId(String id, HttpServletRequest request) {
        // The servlet container strips ";params" from path segments before mapping: "/accounts/a;b" would read "a".
        if (!ID.matcher(id).matches() || request.getRequestURI().indexOf(';') >= 0) {
            throw new BadRequestException(INVALID_ID);
        }
    }

    private long amountOf(@Nullable String contentType, byte @Nullable [] body) {
        if (contentType != null && !isJson(contentType)) {
            throw new BadRequestException(
                    "The body must be JSON, sent with Content-Type: application/json (not " + contentType + ")");
        }
        if (body == null || body.length == 0) {
            throw new BadRequestException("The body must be a JSON object such as {\"amount\": 10}; it is empty");
        }
        JsonNode root;
        try {
            root = json.readTree(body);
        } catch (JacksonException e) {
            throw new BadRequestException("The body is not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw new BadRequestException("The body must be a JSON object such as {\"amount\": 10}");
        }
        JsonNode amount = root.get("amount");
        if (amount == null || amount.isNull()) {
            throw new BadRequestException("The field \"amount\" is missing");
        }
        if (!amount.isIntegralNumber() || !amount.canConvertToLong() || amount.longValue() <= 0) {
            throw new BadRequestException(
                    "The field \"amount\" must be a whole number from 1 to " + Long.MAX_VALUE + ", not " + amount);
        }
        return amount.longValue();
    }

    private static boolean isJson(String contentType) {
        try {
            MediaType type = MediaType.parseMediaType(contentType);
            return type.getType().equals("application")
                    && (type.getSubtype().equals("json") || type.getSubtype().endsWith("+json"));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * An invalid id or body: 400.
     *
     * @param e the failure
     * @return the problem
     */
    @ExceptionHandler(BadRequestException.class)
    ResponseEntity<ProblemDetail> badRequest(BadRequestException e) {
        return problem(HttpStatus.BAD_REQUEST, "Invalid request", e.getMessage());
    }

    /**
     * The account refused the message (a deposit that would overflow the balance): 422, nothing changed.
     *
     * @param e the failure
     * @return the problem
     */
    @ExceptionHandler(EntityException.class)
    ResponseEntity<ProblemDetail> refused(EntityException e) {
        String detail = e.remoteMessage() != null ? e.remoteMessage() : e.remoteClassName();
        return problem(HttpStatus.UNPROCESSABLE_CONTENT, "Refused by the account", detail);
    }

    /**
     * The cluster could not reach the account in time: its node crashed or left, does not keep up with what this node
     * sends it ({@code MemberBehindException}, an {@code EntityUnreachableException}), no node can host it yet, a
     * buffer is full, or this node is on the losing side of a network partition (ask another node); or the database
     * failed, so the deposit could not be stored and had no effect (never a 422: the account did not refuse it). 503
     * with {@code Retry-After}; a retry may succeed once the cluster has settled or the database answers again.
     *
     * @param e the failure
     * @return the problem
     */
    @ExceptionHandler({
        AskTimeoutException.class,
        EntityUnreachableException.class,
        BufferFullException.class,
        ClusterPartitionedException.class,
        StoreUnavailableException.class
    })
    ResponseEntity<ProblemDetail> unavailable(ShardingException e) {
        log.debug("Account unavailable: {}", e.getMessage());
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, "1")
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(detail(HttpStatus.SERVICE_UNAVAILABLE, "Account unavailable", e.getMessage()));
    }

    /**
     * The database failed to read an account's history: 503 with {@code Retry-After}.
     *
     * @param e the failure
     * @return the problem
     */
    @ExceptionHandler(DataAccessException.class)
    ResponseEntity<ProblemDetail> historyUnavailable(DataAccessException e) {
        log.debug("History unavailable: {}", e.getMostSpecificCause().toString());
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, "1")
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(detail(
                        HttpStatus.SERVICE_UNAVAILABLE,
                        "History unavailable",
                        "The account history could not be read from the database; a retry may succeed"));
    }

    /**
     * The {@code Idempotency-Key} was used lately for another deposit to the same account: 422, nothing applied (a
     * repeat must send the same body with the same key; a new deposit needs a new key).
     *
     * @param e the failure
     * @param request the request, for its key
     * @return the problem
     */
    @ExceptionHandler(IdempotencyKeyReusedException.class)
    ResponseEntity<ProblemDetail> keyReused(
            IdempotencyKeyReusedException e, org.springframework.web.context.request.WebRequest request) {
        return problem(
                HttpStatus.UNPROCESSABLE_CONTENT,
                "Idempotency-Key reused",
                "The Idempotency-Key " + request.getHeader(IDEMPOTENCY_KEY) + " was used for another deposit to this"
                        + " account; nothing was applied. Send a new deposit with a new key: " + e.getMessage());
    }

    /**
     * The database's connection broke while the deposit was committed: it may have been stored, or not. 504, without
     * {@code Retry-After}: repeat the deposit with the same {@code Idempotency-Key} (it then applies once, whichever
     * it was), or read the balance before deciding; a repeat without a key may deposit twice.
     *
     * @param e the failure
     * @return the problem
     */
    @ExceptionHandler(StoreOutcomeUnknownException.class)
    ResponseEntity<ProblemDetail> outcomeUnknown(StoreOutcomeUnknownException e) {
        log.warn("Deposit outcome unknown: {}", e.getMessage());
        return problem(HttpStatus.GATEWAY_TIMEOUT, "Deposit outcome unknown", e.getMessage());
    }

    /**
     * A message or reply the runtime refused: a bug in this application, 500.
     *
     * @param e the failure
     * @return the problem
     */
    @ExceptionHandler({MessageRejectedException.class, UnhandledMessageException.class})
    ResponseEntity<ProblemDetail> rejected(ShardingException e) {
        log.error("Message to an account rejected", e);
        return problem(HttpStatus.INTERNAL_SERVER_ERROR, "Message rejected", e.getMessage());
    }

    /**
     * Any other sharding failure, such as this node shutting down: 503.
     *
     * @param e the failure
     * @return the problem
     */
    @ExceptionHandler(ShardingException.class)
    ResponseEntity<ProblemDetail> sharding(ShardingException e) {
        return unavailable(e);
    }

    private static ResponseEntity<ProblemDetail> problem(HttpStatus status, String title, @Nullable String detail) {
        return ResponseEntity.status(status)
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(detail(status, title, detail));
    }

    private static ProblemDetail detail(HttpStatus status, String title, @Nullable String detail) {
        ProblemDetail p = ProblemDetail.forStatus(status);
        p.setTitle(title);
        p.setDetail(detail);
        return p;
    }
}
