"""Sample data of the orders test design: three customers with a few orders each."""


def generate(seed=1, scale=1.0):
    statuses = ["open", "paid", "shipped"]
    return {
        "Order": [
            {
                "customer": f"C{c}",
                "order_id": f"{n:04d}",
                "status": statuses[(c + n) % 3],
                "total": c * 100 + n,
            }
            for c in range(1, 4)
            for n in range(1, 6)
        ]
    }


def params(seed=1, scale=1.0):
    return {"customer_orders": [{"customer": "C1"}, {"customer": "C9"}]}
