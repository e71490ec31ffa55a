package dev.agentbox.run.store;

class JpaDerbyClaimStoreTest extends ClaimStoreContract {

    @Override
    protected StoreBackend backend() {
        return StoreBackend.derby();
    }
}
